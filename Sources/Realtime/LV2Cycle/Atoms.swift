/// Atoms as the LV2 atom extension lays them out in memory, read and written in place: the
/// audio thread's whole traffic with the host's atom ports, with no allocation and no C call.
///
/// An atom is a 32-bit body size and a 32-bit type, then the body, padded to 8 bytes. A sequence's
/// body is a unit and a pad word, then events: a 64-bit frame, then an atom. An object's body is
/// an id and a type, then properties: a key and a context, then an atom.

/// One atom: where its body is, how long, of what type.
public struct Atom {
    public let type: UInt32
    public let size: Int
    public let body: UnsafeRawPointer

    /// The atom whose header is at `header`.
    /// - Thread: any.
    @inline(__always) @_noAllocation @_noLocks
    public init(at header: UnsafeRawPointer) {
        size = Int(header.loadUnaligned(as: UInt32.self))
        type = header.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        body = header + 8
    }

    /// The bytes of the body.
    /// - Thread: any.
    public var bytes: UnsafeBufferPointer<UInt8> {
        @_noAllocation @_noLocks get { UnsafeBufferPointer(start: body.assumingMemoryBound(to: UInt8.self), count: size) }
    }

    /// A string or path body without its closing NUL.
    /// - Thread: any.
    public var text: UnsafeBufferPointer<UInt8> {
        @_noAllocation @_noLocks get {
            var count = size
            while count > 0, body.load(fromByteOffset: count - 1, as: UInt8.self) == 0 { count -= 1 }
            return UnsafeBufferPointer(start: body.assumingMemoryBound(to: UInt8.self), count: count)
        }
    }

    @inline(__always) @_noAllocation @_noLocks
    static func padded(_ size: Int) -> Int { (size + 7) & ~7 }
}

/// The events of an `atom:Sequence`, in order.
public struct AtomSequenceEvents {
    private var cursor: UnsafeRawPointer
    private let end: UnsafeRawPointer

    /// The events of the sequence whose atom header is at `sequence`.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public init(of sequence: UnsafeRawPointer) {
        let size = Int(sequence.loadUnaligned(as: UInt32.self))
        cursor = sequence + 16  // the atom header, then the body's unit and pad
        end = sequence + 8 + max(8, size)
    }

    /// The next event: its frame in the block and its atom.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public mutating func next() -> (frame: Int64, atom: Atom)? {
        guard cursor + 16 <= end else { return nil }
        let frame = cursor.loadUnaligned(as: Int64.self)
        let atom = Atom(at: cursor + 8)
        guard atom.body + atom.size <= end else { return nil }
        cursor = atom.body + Atom.padded(atom.size)
        return (frame, atom)
    }
}

/// The properties of an `atom:Object` body.
public struct AtomObject {
    public let objectType: UInt32
    private let first: UnsafeRawPointer
    private let end: UnsafeRawPointer

    /// The object whose atom is `atom`.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public init?(_ atom: Atom) {
        guard atom.size >= 8 else { return nil }
        objectType = atom.body.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
        first = atom.body + 8
        end = atom.body + atom.size
    }

    /// The value of property `key`, if the object has it.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public func value(of key: UInt32) -> Atom? {
        var property = first
        while property + 16 <= end {
            let value = Atom(at: property + 8)
            guard value.body + value.size <= end else { return nil }
            if property.loadUnaligned(as: UInt32.self) == key { return value }
            property = value.body + Atom.padded(value.size)
        }
        return nil
    }
}

/// Writes an `atom:Sequence` into a host's output port: events are appended while they fit; one
/// that does not is left out whole.
public struct AtomSequenceWriter {
    private let sequence: UnsafeMutableRawPointer
    private let capacity: Int
    private var used = 8  // the body's unit and pad

    /// Starts the sequence at `sequence`, whose atom size the host set to the room it has.
    /// - Thread: any.
    @_noAllocation @_noLocks
    public init(into sequence: UnsafeMutableRawPointer, sequenceType: UInt32) {
        self.sequence = sequence
        capacity = Int(sequence.loadUnaligned(as: UInt32.self))
        sequence.storeBytes(of: UInt32(8), as: UInt32.self)
        sequence.storeBytes(of: sequenceType, toByteOffset: 4, as: UInt32.self)
        sequence.storeBytes(of: UInt64(0), toByteOffset: 8, as: UInt64.self)
    }

    /// Appends a `patch:Set` of `property` to a `valueType` atom holding `text` and a NUL, at
    /// `frame`. Returns false, writing nothing, when it does not fit.
    /// - Thread: any.
    @discardableResult @_noAllocation @_noLocks
    public mutating func appendPatchSet(frame: Int64, property: UInt32, valueType: UInt32, text: UnsafeBufferPointer<UInt8>,
                                        uris: PluginURIDs) -> Bool {
        let valueSize = text.count + 1
        // The object: id and type, then two properties (key, context, atom header, body).
        let objectSize = 8 + (16 + 8) + (16 + Atom.padded(valueSize))
        let eventSize = 16 + objectSize
        guard used + eventSize <= capacity else { return false }
        let event = sequence + 8 + used
        event.storeBytes(of: frame, as: Int64.self)
        event.storeBytes(of: UInt32(objectSize), toByteOffset: 8, as: UInt32.self)
        event.storeBytes(of: uris.atomObject, toByteOffset: 12, as: UInt32.self)
        let object = event + 16
        object.storeBytes(of: UInt32(0), as: UInt32.self)
        object.storeBytes(of: uris.patchSet, toByteOffset: 4, as: UInt32.self)
        let first = object + 8
        first.storeBytes(of: uris.patchProperty, as: UInt32.self)
        first.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)
        first.storeBytes(of: UInt32(4), toByteOffset: 8, as: UInt32.self)
        first.storeBytes(of: uris.atomURID, toByteOffset: 12, as: UInt32.self)
        first.storeBytes(of: UInt64(property), toByteOffset: 16, as: UInt64.self)  // the URID and its pad
        let second = first + 24
        second.storeBytes(of: uris.patchValue, as: UInt32.self)
        second.storeBytes(of: UInt32(0), toByteOffset: 4, as: UInt32.self)
        second.storeBytes(of: UInt32(valueSize), toByteOffset: 8, as: UInt32.self)
        second.storeBytes(of: valueType, toByteOffset: 12, as: UInt32.self)
        let value = second + 16
        if let base = text.baseAddress { value.copyMemory(from: base, byteCount: text.count) }
        for index in text.count..<Atom.padded(valueSize) { value.storeBytes(of: 0, toByteOffset: index, as: UInt8.self) }
        used += eventSize
        sequence.storeBytes(of: UInt32(used), as: UInt32.self)
        return true
    }
}
