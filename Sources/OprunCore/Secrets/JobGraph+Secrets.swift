extension JobGraph {
  /// What the manifest's `secrets` name (SPEC §15), as patterns to mask: each name's value in
  /// oprun's own environment (`ambient`) and in every job's (its dotenv files and `env`); nil
  /// when the manifest names none, or none has a value long enough to be masked.
  public func secretPatterns(ambient: (String) -> String?) -> SecretPatterns? {
    guard !manifest.secrets.isEmpty else { return nil }
    let names = Set(manifest.secrets.map(\.value))
    var values = Set(names.compactMap(ambient))
    for job in jobs {
      for entry in job.env where names.contains(entry.name) { values.insert(entry.value) }
    }
    return SecretPatterns(values: values)
  }
}
