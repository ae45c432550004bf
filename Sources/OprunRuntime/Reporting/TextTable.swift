/// The tables of the human views (`oprun ctl status`, `oprun log`): a header row, then one
/// row per item.
enum TextTable {
  /// Left-aligned columns two spaces apart, the last one unpadded; nothing for no rows.
  static func render(_ header: [String], _ rows: [[String]]) -> String {
    guard !rows.isEmpty else { return "" }
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    return all.map { row in
      row.indices.map { column in
        column == row.count - 1 ? row[column] : row[column].padding(to: widths[column])
      }.joined(separator: "  ")
    }.joined(separator: "\n") + "\n"
  }
}

extension String {
  fileprivate func padding(to width: Int) -> String {
    count >= width ? self : self + String(repeating: " ", count: width - count)
  }
}
