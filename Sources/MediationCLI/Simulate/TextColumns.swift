/// Rows of text cells laid out in columns as wide as their widest cell, so a long id or a big
/// number moves the columns after it instead of breaking their alignment. A column is at least
/// its minimum width and keeps `gap` spaces from its neighbour: a left-aligned column is padded
/// after its text (the last one is not, so no line ends in spaces), a right-aligned one before.
struct TextColumns {
    /// Where a cell sits in its column.
    enum Alignment {
        case left, right
    }

    /// One column's layout.
    struct Column {
        var alignment: Alignment
        /// The narrowest the column is, gap included.
        var minimumWidth: Int
        /// The fewest spaces between its text and its neighbour's.
        var gap = 1
    }

    var columns: [Column]
    var rows: [[String]] = []

    init(_ columns: [Column]) {
        self.columns = columns
    }

    mutating func append(_ row: [String]) {
        rows.append(row)
    }

    /// The width of each column: its minimum, or its widest cell and its gap.
    var widths: [Int] {
        columns.indices.map { index in
            let widest = rows.map { index < $0.count ? $0[index].count : 0 }.max() ?? 0
            return max(columns[index].minimumWidth, widest + columns[index].gap)
        }
    }

    /// The rows as lines; a row's cells past the last column are dropped.
    var lines: [String] {
        let widths = widths
        return rows.map { row in
            var line = ""
            for (index, cell) in row.prefix(columns.count).enumerated() {
                let fill = String(repeating: " ", count: max(0, widths[index] - cell.count))
                switch columns[index].alignment {
                case .left: line += index == min(row.count, columns.count) - 1 ? cell : cell + fill
                case .right: line += fill + cell
                }
            }
            return line
        }
    }
}
