import Foundation

/// A hand-written SVG picture: shapes and text appended in drawing order, serialised as one file.
/// Coordinates are SVG user units (pixels at 100 %), y growing downwards.
struct SVGDocument {
    let width: Double
    let height: Double
    private var elements: [String] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
        rectangle(x: 0, y: 0, width: width, height: height, fill: "#ffffff")
    }

    mutating func rectangle(x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil) {
        elements.append("<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(0, width)))\" height=\"\(n(max(0, height)))\" fill=\"\(fill)\""
                        + (stroke.map { " stroke=\"\($0)\"" } ?? "") + "/>")
    }

    mutating func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, width: Double = 1, dash: String? = nil) {
        elements.append("<line x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\""
                        + (dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") + "/>")
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String, width: Double = 2, dash: String? = nil) {
        let list = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
        elements.append("<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\""
                        + (dash.map { " stroke-dasharray=\"\($0)\"" } ?? "") + "/>")
    }

    mutating func circle(x: Double, y: Double, radius: Double, fill: String) {
        elements.append("<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(radius))\" fill=\"\(fill)\"/>")
    }

    enum Anchor: String { case start, middle, end }

    mutating func text(_ string: String, x: Double, y: Double, size: Double = 12, anchor: Anchor = .start,
                       fill: String = "#222222", bold: Bool = false, rotated: Bool = false) {
        let escaped = string.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        elements.append("<text x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\" text-anchor=\"\(anchor.rawValue)\" fill=\"\(fill)\""
                        + (bold ? " font-weight=\"bold\"" : "") + (rotated ? " transform=\"rotate(-90 \(n(x)) \(n(y)))\"" : "")
                        + ">\(escaped)</text>")
    }

    var svg: String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\""
            + " font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n" + elements.joined(separator: "\n") + "\n</svg>\n"
    }

    private func n(_ value: Double) -> String { String(format: "%.1f", value) }
}

/// A linear or logarithmic mapping from data values to a span of the picture.
struct ChartScale {
    var lower: Double
    var upper: Double
    var logarithmic: Bool
    var from: Double
    var to: Double

    func position(_ value: Double) -> Double {
        let fraction = logarithmic ? (log10(max(value, lower)) - log10(lower)) / (log10(upper) - log10(lower))
                                   : (value - lower) / (upper - lower)
        return from + (to - from) * min(1, max(0, fraction))
    }
}

/// Colours shared by every chart, so a series means the same thing in each.
enum ChartColour {
    static let axis = "#444444"
    static let grid = "#e4e4e4"
    static let deadline = "#d62728"
    static let limit = "#ff9f1c"
    static let primary = "#1f77b4"
    static let secondary = "#2ca02c"
    static let reference = "#7f7f7f"
}
