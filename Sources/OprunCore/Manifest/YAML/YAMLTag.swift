import CYAML

/// What a node's explicit tag asks for, as far as a manifest may use tags: YAML's standard
/// tags for what a manifest holds, and `!`, the non-specific tag. Anything else (`!!binary`,
/// `!!timestamp`, a local tag like `!custom`) has no meaning in a manifest.
enum YAMLTag: Equatable {
  /// `!`, YAML's non-specific tag: a string on a scalar, nothing on a container.
  case nonSpecific
  /// `!!str`: the scalar is a string, whatever it looks like.
  case string
  /// `!!int`, `!!float`, `!!bool`, `!!null`: read as the same scalar written plain.
  case typed
  /// `!!seq` or `!!map`, on a container of that kind.
  case container(YAMLNode.Kind)
  case unknown

  static let standardPrefix = "tag:yaml.org,2002:"
  static let supported = "!!str, !!int, !!float, !!bool, !!null, !!seq, !!map and !"

  /// The tag libyaml resolved (a `!!` handle already expanded), or nil for no tag.
  init?(_ tag: UnsafeMutablePointer<yaml_char_t>?) {
    guard let tag else { return nil }
    switch String(cString: tag) {
    case "!": self = .nonSpecific
    case Self.standardPrefix + "str": self = .string
    case Self.standardPrefix + "int", Self.standardPrefix + "float", Self.standardPrefix + "bool",
      Self.standardPrefix + "null":
      self = .typed
    case Self.standardPrefix + "seq": self = .container(.sequence)
    case Self.standardPrefix + "map": self = .container(.mapping)
    default: self = .unknown
    }
  }

  /// The tag as a user would write it: `!!binary` rather than its expanded form.
  static func written(_ tag: UnsafeMutablePointer<yaml_char_t>?) -> String {
    guard let tag else { return "" }
    let text = String(cString: tag)
    return text.hasPrefix(standardPrefix) ? "!!" + text.dropFirst(standardPrefix.count) : text
  }
}
