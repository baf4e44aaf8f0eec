/// A whole JSON document as a tree, so a manifest can be checked with plain pattern matching and
/// any value quoted in a message.
///
/// - Thread: any.
public enum JSONValue: Decodable, Equatable, CustomStringConvertible, Sendable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    /// - Thread: any.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let bool = try? container.decode(Bool.self) { self = .bool(bool) }
        else if let number = try? container.decode(Double.self) { self = .number(number) }
        else if let string = try? container.decode(String.self) { self = .string(string) }
        else if let array = try? container.decode([JSONValue].self) { self = .array(array) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    /// The value as a message quotes it: scalars as written (`200`, `36.5`, `"C2"`, `true`),
    /// containers by kind only, since a whole array in a one-line message would drown the point.
    /// - Thread: any.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let bool): "\(bool)"
        case .number(let number): Int(exactly: number).map(String.init) ?? "\(number)"
        case .string(let string): "\"\(string)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
