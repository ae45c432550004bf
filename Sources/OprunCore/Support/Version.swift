/// oprun's version, as `--version` prints it and the journal records it.
public let oprunVersion = "0.1.0"
