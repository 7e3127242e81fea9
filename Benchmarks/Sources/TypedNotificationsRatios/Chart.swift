import Foundation

// The Performance article's chart: the time of one post against the number of observers, one line per way of
// posting, drawn as an SVG string by hand so that the benchmarks need no plotting dependency. `--chart PATH` runs the
// chart's scenarios and writes it (see main.swift).

/// One line of the chart: a way of posting, and its time per post (nanoseconds) at each observer count.
struct ChartSeries {
    let name: String
    let color: String
    /// One value per entry of the chart's observer counts; `nil` where the scenario did not run.
    let nanoseconds: [Double?]
}

/// An SVG line chart of `series` against `observerCounts`, evenly spaced along the x axis, with a logarithmic time
/// axis (one gridline per power of ten), each line labelled at its right end, and `caption` under the axis.
func postCostChart(observerCounts: [Int], series: [ChartSeries], caption: String) -> String {
    let width = 680.0
    let height = 400.0
    let plot = (left: 80.0, right: width - 190, top: 48.0, bottom: height - 78)
    let values = series.flatMap { $0.nanoseconds.compactMap { $0 } }.filter { $0 > 0 }
    let lowDecade = floor(log10(values.min() ?? 100))
    let highDecade = max(ceil(log10(values.max() ?? 1_000)), lowDecade + 1)

    func x(_ index: Int) -> Double {
        plot.left + (plot.right - plot.left) * Double(index) / Double(max(observerCounts.count - 1, 1))
    }
    func y(_ nanoseconds: Double) -> Double {
        let fraction = (log10(nanoseconds) - lowDecade) / (highDecade - lowDecade)
        return plot.bottom - (plot.bottom - plot.top) * fraction
    }
    func number(_ value: Double) -> String { String(format: "%.1f", value) }
    func duration(_ nanoseconds: Double) -> String {  // three significant digits: "244 ns", "2.25 µs", "1 ms"
        switch nanoseconds {
        case ..<1_000: String(format: "%.3g ns", nanoseconds)
        case ..<1_000_000: String(format: "%.3g µs", nanoseconds / 1_000)
        default: String(format: "%.3g ms", nanoseconds / 1_000_000)
        }
    }
    func text(_ content: String, x: Double, y: Double, anchor: String = "middle", extra: String = "") -> String {
        "<text x=\"\(number(x))\" y=\"\(number(y))\" text-anchor=\"\(anchor)\"\(extra)>\(content)</text>"
    }

    var svg = [
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\""
            + " viewBox=\"0 0 \(Int(width)) \(Int(height))\" font-family=\"-apple-system, Helvetica, Arial, sans-serif\""
            + " font-size=\"13\" fill=\"#1d1d1f\">",
        "<title>Time per post against the number of observers</title>",
        "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
        text(
            "Time per post (log scale; lower is better)", x: plot.left, y: 26, anchor: "start",
            extra: " font-weight=\"600\""),
    ]
    // Gridlines and labels of the time axis, one per power of ten.
    for decade in stride(from: lowDecade, through: highDecade, by: 1) {
        let lineY = number(y(pow(10, decade)))
        svg.append(
            "<line x1=\"\(number(plot.left))\" y1=\"\(lineY)\" x2=\"\(number(plot.right))\" y2=\"\(lineY)\""
                + " stroke=\"#d2d2d7\"/>")
        svg.append(text(duration(pow(10, decade)), x: plot.left - 10, y: y(pow(10, decade)) + 4, anchor: "end"))
    }
    // The observer axis.
    for (index, count) in observerCounts.enumerated() {
        svg.append(text(count.formatted(), x: x(index), y: plot.bottom + 22))
    }
    svg.append(text("observers of the posted type", x: (plot.left + plot.right) / 2, y: plot.bottom + 44))
    // One line per series, with its name and last value at its right end, kept 16 points apart from the others'.
    var labels: [(y: Double, content: String, color: String)] = []
    for line in series {
        let points = line.nanoseconds.enumerated().compactMap { index, value in value.map { (x(index), y($0)) } }
        guard let last = points.last, let lastValue = line.nanoseconds.last(where: { $0 != nil }) ?? nil else {
            continue
        }
        let path = points.map { "\(number($0.0)),\(number($0.1))" }.joined(separator: " ")
        svg.append(
            "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"2.5\""
                + " stroke-linejoin=\"round\"/>")
        for point in points {
            svg.append(
                "<circle cx=\"\(number(point.0))\" cy=\"\(number(point.1))\" r=\"3.5\" fill=\"\(line.color)\"/>")
        }
        labels.append((last.1, "\(line.name): \(duration(lastValue))", line.color))
    }
    labels.sort { $0.y < $1.y }
    for index in labels.indices.dropFirst() where labels[index].y < labels[index - 1].y + 16 {
        labels[index].y = labels[index - 1].y + 16
    }
    for label in labels {
        svg.append(
            text(label.content, x: plot.right + 12, y: label.y + 4, anchor: "start", extra: " fill=\"\(label.color)\""))
    }
    svg.append(
        text(caption, x: 12, y: height - 10, anchor: "start", extra: " font-size=\"11\" fill=\"#6e6e73\""))
    svg.append("</svg>")
    return svg.joined(separator: "\n") + "\n"
}
