/// What one `execve` may carry on Linux, as far as the manifest decides it: each job command
/// runs as `/bin/sh -c COMMAND` with the job's environment, and a kernel refuses (E2BIG)
/// a string over `MAX_ARG_STRLEN`, or strings that together pass `ARG_MAX`. A manifest that
/// would hit either is refused when it is loaded, at the string, rather than when the job
/// starts — or before oprun builds gigabytes of environment for it.
enum ExecLimits {
  /// `MAX_ARG_STRLEN`: one argument, or one `NAME=value` environment string, with its NUL.
  static let maximumStringLength = 131_072
  /// The part of `ARG_MAX` (2 MiB on Linux with the default 8 MiB stack) a job's shell, its
  /// command and the manifest's environment for it may take: half, the other half left to
  /// the environment oprun inherits and the `OPRUN_*` variables it adds.
  static let manifestBudget = 1 << 20
  /// The arguments before a job's command: `/bin/sh` and `-c`.
  static let shellArguments = ["/bin/sh", "-c"]

  static let stringLimitText =
    "the kernel takes at most 131071 bytes (128 KiB with the closing NUL) in one argument or environment string"

  /// Whether a string of `length` bytes fits in one argument or environment string.
  static func fitsOneString(_ length: Int) -> Bool { length + 1 <= maximumStringLength }

  /// What a string of `length` bytes costs of `ARG_MAX`, counted as the kernel does: its
  /// bytes, its NUL and its pointer in `argv` or `envp`.
  static func cost(ofString length: Int) -> Int { length + 1 + MemoryLayout<UnsafeRawPointer>.size }

  /// What one command of a job with environment `env` costs of `ARG_MAX`.
  static func cost(ofCommand command: String, environment env: [EnvironmentEntry]) -> Int {
    let arguments = (shellArguments + [command]).reduce(0) { $0 + cost(ofString: $1.utf8.count) }
    return env.reduce(arguments) { $0 + cost(ofString: $1.name.utf8.count + 1 + $1.value.utf8.count) }
  }

  /// `1 MiB`, `1.05 MiB`, `960 KiB`, `1000 bytes`: a size as a person reads it.
  static func describe(bytes: Int) -> String {
    if bytes >= 1 << 20 {
      if bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
      let hundredths = (bytes * 100) >> 20
      return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100) MiB"
    }
    return bytes % 1024 == 0 ? "\(bytes >> 10) KiB" : "\(bytes) bytes"
  }
}
