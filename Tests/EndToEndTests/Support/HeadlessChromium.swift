import Foundation
import Testing

/// Headless Chromium, to open the pages `oprun report` writes as a browser does.
enum HeadlessChromium {
  /// The document after the page's scripts ran, as Chromium serialises it.
  static func dumpDOM(of page: String, in folder: Scratch) throws -> String {
    try run(["--dump-dom", URL(fileURLWithPath: page).absoluteString], in: folder)
  }

  /// The document after the page's scripts ran and then `script`, run after them as a
  /// user's clicks and keys would come, in a 1400×900 window. The page is copied to
  /// `interacted.html` with `script` before its `</body>`.
  static func dumpDOM(of page: String, after script: String, in folder: Scratch) throws -> String {
    let html = try String(contentsOfFile: page, encoding: .utf8)
    let end = try #require(html.range(of: "</body>", options: .backwards), "\(page) has no </body>")
    let copy = try folder.write(
      "interacted.html", html.replacingCharacters(in: end, with: "<script>\n\(script)\n</script>\n</body>"))
    return try run(["--window-size=1400,900", "--dump-dom", URL(fileURLWithPath: copy).absoluteString], in: folder)
  }

  /// Saves a PNG of the page as a 1400×900 window shows it.
  static func screenshot(of page: String, to png: String, in folder: Scratch) throws {
    _ = try run(
      [
        "--screenshot=\(png)", "--window-size=1400,900", "--hide-scrollbars", URL(fileURLWithPath: page).absoluteString,
      ],
      in: folder)
  }

  private static func run(_ arguments: [String], in folder: Scratch) throws -> String {
    let chromium = try ExternalTool("chromium", package: "chromium")
    return try chromium.run(
      ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(folder.path("chromium-profile"))"] + arguments,
      in: folder
    ).stdout
  }
}

/// A dumped document read back: attribute values with their entities decoded.
struct DumpedPage {
  var html: String

  /// The `<html>` element's attribute `name`, nil when absent.
  func rootAttribute(_ name: String) -> String? {
    guard let tag = html.range(of: "<html[^>]*>", options: .regularExpression) else { return nil }
    return Self.values(of: name, in: String(html[tag])).first
  }

  /// `data-job` of every element whose opening tag starts with `prefix`.
  func jobs(inTagsStartingWith prefix: String) -> [String] {
    let pattern = NSRegularExpression.escapedPattern(for: prefix) + "[^>]*>"
    var names: [String] = []
    var searchRange = html.startIndex..<html.endIndex
    while let tag = html.range(of: pattern, options: .regularExpression, range: searchRange) {
      names += Self.values(of: "data-job", in: String(html[tag]))
      searchRange = tag.upperBound..<html.endIndex
    }
    return names
  }

  /// The element with `id`'s opening tag and what follows it, up to its first `<`.
  func text(ofElementWithID id: String) -> String? {
    guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
    let rest = html[start.upperBound...]
    guard let close = rest.firstIndex(of: ">") else { return nil }
    let after = rest[rest.index(after: close)...]
    return String(after[..<(after.firstIndex(of: "<") ?? after.endIndex)])
  }

  private static func values(of attribute: String, in tag: String) -> [String] {
    guard let range = tag.range(of: " \(attribute)=\"[^\"]*\"", options: .regularExpression) else { return [] }
    let quoted = tag[range].drop { $0 != "\"" }.dropFirst().dropLast()
    return [decodeEntities(String(quoted))]
  }

  static func decodeEntities(_ text: String) -> String {
    text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
      .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#39;", with: "'")
      .replacingOccurrences(of: "&nbsp;", with: "\u{a0}").replacingOccurrences(of: "&amp;", with: "&")
  }
}
