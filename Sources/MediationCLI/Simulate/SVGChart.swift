import Foundation
import Mediation

/// Inline SVG charts for the HTML report: a line chart (with an optional interval band) and
/// horizontal bars. Plain SVG 1.1 elements, well-formed XML, no script, no external resource.
enum SVGChart {
    /// One line of a line chart.
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
        var color: String
        var dashed = false
        var markers = false
        var legend = true
    }

    /// A band around a line: lower and upper y at each x.
    struct Band {
        var points: [(x: Double, lower: Double, upper: Double)]
        var color: String
    }

    /// One bar of a bar chart.
    struct Bar {
        var label: String
        var value: Double
        var text: String
        var color: String
    }

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]

    /// A line chart of `series` over `x` and `y` ranges, with axis labels and a legend.
    static func lines(_ series: [Series], band: Band? = nil, highlight: (x: Double, y: Double)? = nil, xLabel: String, yLabel: String, xRange: (Double, Double), yRange: (Double, Double), title: String) -> String {
        let width = 760.0, height = 340.0
        let left = 70.0, right = 190.0, top = 20.0, bottom = 50.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let xTicks = niceTicks(xRange.0, xRange.1)
        let yTicks = niceTicks(yRange.0, yRange.1)
        let (x0, x1) = (xTicks.low, xTicks.high)
        let (y0, y1) = (yTicks.low, yTicks.high)
        func px(_ x: Double) -> String { n(left + (x - x0) / (x1 - x0) * plotWidth) }
        func yPosition(_ y: Double) -> Double { top + plotHeight - (y - y0) / (y1 - y0) * plotHeight }
        func py(_ y: Double) -> String { n(yPosition(y)) }
        var svg = "<svg class=\"chart\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" aria-label=\"\(HTML.escape(title))\">"
        svg += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotWidth))\" height=\"\(n(plotHeight))\" fill=\"#ffffff\" stroke=\"#cccccc\"/>"
        for xValue in xTicks.values {
            svg += "<line x1=\"\(px(xValue))\" y1=\"\(n(top))\" x2=\"\(px(xValue))\" y2=\"\(n(top + plotHeight))\" stroke=\"#eeeeee\"/>"
            svg += "<text x=\"\(px(xValue))\" y=\"\(n(top + plotHeight + 16))\" text-anchor=\"middle\" class=\"tick\">\(SimulationText.fixed(xValue, xTicks.digits))</text>"
        }
        for yValue in yTicks.values {
            svg += "<line x1=\"\(n(left))\" y1=\"\(py(yValue))\" x2=\"\(n(left + plotWidth))\" y2=\"\(py(yValue))\" stroke=\"#eeeeee\"/>"
            svg += "<text x=\"\(n(left - 6))\" y=\"\(n(yPosition(yValue) + 4))\" text-anchor=\"end\" class=\"tick\">\(SimulationText.fixed(yValue, yTicks.digits))</text>"
        }
        svg += "<text x=\"\(n(left + plotWidth / 2))\" y=\"\(n(height - 10))\" text-anchor=\"middle\" class=\"axis\">\(HTML.escape(xLabel))</text>"
        svg += "<text x=\"16\" y=\"\(n(top + plotHeight / 2))\" text-anchor=\"middle\" class=\"axis\" transform=\"rotate(-90 16 \(n(top + plotHeight / 2)))\">\(HTML.escape(yLabel))</text>"
        if let band, !band.points.isEmpty {
            let upper = band.points.map { "\(px($0.x)),\(py($0.upper))" }
            let lower = band.points.reversed().map { "\(px($0.x)),\(py($0.lower))" }
            svg += "<polygon class=\"band\" points=\"\((upper + lower).joined(separator: " "))\" fill=\"\(band.color)\" fill-opacity=\"0.18\" stroke=\"none\"/>"
        }
        var legendIndex = 0
        for line in series where !line.points.isEmpty {
            let d = line.points.enumerated().map { "\($0.offset == 0 ? "M" : "L")\(px($0.element.x)) \(py($0.element.y))" }.joined(separator: " ")
            svg += "<path class=\"series\" d=\"\(d)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2\"\(line.dashed ? " stroke-dasharray=\"6 4\"" : "")/>"
            if line.markers {
                for point in line.points {
                    svg += "<circle cx=\"\(px(point.x))\" cy=\"\(py(point.y))\" r=\"3\" fill=\"\(line.color)\"/>"
                }
            }
            guard line.legend else { continue }
            let legendY = top + 14 + Double(legendIndex) * 18
            legendIndex += 1
            svg += "<line x1=\"\(n(left + plotWidth + 12))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(left + plotWidth + 36))\" y2=\"\(n(legendY - 4))\" stroke=\"\(line.color)\" stroke-width=\"2\"\(line.dashed ? " stroke-dasharray=\"6 4\"" : "")/>"
            svg += "<text x=\"\(n(left + plotWidth + 42))\" y=\"\(n(legendY))\" class=\"legend\">\(HTML.escape(String(line.name.prefix(24))))</text>"
        }
        if let highlight {
            svg += "<circle cx=\"\(px(highlight.x))\" cy=\"\(py(highlight.y))\" r=\"6\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"2\"/>"
        }
        return svg + "</svg>"
    }

    /// Axis ticks at a step of 1, 2 or 5 × 10ⁿ covering `low…high` in about five steps: the
    /// rounded ends, the tick values, and the decimals their labels need.
    static func niceTicks(_ low: Double, _ high: Double) -> (low: Double, high: Double, values: [Double], digits: Int) {
        var (low, high) = (low.isFinite ? low : 0, high.isFinite ? high : 1)
        if high <= low { (low, high) = (low - 1, low + 1) }
        let raw = (high - low) / 5
        let magnitude = Foundation.pow(10, Foundation.floor(Foundation.log10(raw)))
        let normalised = raw / magnitude
        let step = (normalised <= 1 ? 1 : normalised <= 2 ? 2 : normalised <= 5 ? 5 : 10) * magnitude
        let first = Foundation.floor(low / step + 1e-9) * step
        let last = Foundation.ceil(high / step - 1e-9) * step
        let count = min(20, Int(((last - first) / step).rounded()))
        let values = (0...max(0, count)).map { first + Double($0) * step }
        let digits = max(0, min(6, Int(-Foundation.floor(Foundation.log10(step) + 1e-9))))
        return (first, last, values, digits)
    }

    /// Horizontal bars, one per entry, scaled to `maximum`.
    static func bars(_ bars: [Bar], maximum: Double, title: String) -> String {
        let width = 760.0, labelWidth = 250.0, valueWidth = 80.0, rowHeight = 24.0
        let height = max(rowHeight, Double(bars.count) * rowHeight) + 10
        let plotWidth = width - labelWidth - valueWidth
        let scale = maximum > 0 ? plotWidth / maximum : 0
        var svg = "<svg class=\"chart\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" role=\"img\" aria-label=\"\(HTML.escape(title))\">"
        for (index, bar) in bars.enumerated() {
            let y = 5 + Double(index) * rowHeight
            let length = max(0, min(plotWidth, bar.value * scale))
            svg += "<text x=\"\(n(labelWidth - 8))\" y=\"\(n(y + rowHeight / 2 + 4))\" text-anchor=\"end\" class=\"legend\">\(HTML.escape(String(bar.label.prefix(40))))</text>"
            svg += "<rect class=\"bar\" x=\"\(n(labelWidth))\" y=\"\(n(y + 3))\" width=\"\(n(length))\" height=\"\(n(rowHeight - 6))\" fill=\"\(bar.color)\"/>"
            svg += "<text x=\"\(n(labelWidth + length + 6))\" y=\"\(n(y + rowHeight / 2 + 4))\" class=\"tick\">\(HTML.escape(bar.text))</text>"
        }
        return svg + "</svg>"
    }

    /// A coordinate with one decimal.
    static func n(_ value: Double) -> String {
        SimulationText.fixed(value.isFinite ? value : 0, 1)
    }
}
