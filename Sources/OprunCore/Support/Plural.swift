/// `noun` in the number `count` asks for: `job` for one, `jobs` for none or several.
/// Every noun oprun counts takes a plain "s".
public func plural(_ noun: String, count: Int) -> String {
  count == 1 ? noun : noun + "s"
}

/// `1 job`, `0 jobs`, `12 jobs`: a count and its noun.
public func counted(_ count: Int, _ noun: String) -> String {
  "\(count) " + plural(noun, count: count)
}

/// `1 entry`, `3 entries`: a count and its noun, for a noun whose plural is not a plain "s".
public func counted(_ count: Int, _ noun: String, plural: String) -> String {
  "\(count) " + (count == 1 ? noun : plural)
}
