// swift-tools-version:6.0
import PackageDescription

// The manifest front end and the readers of `.oprun/` under libFuzzer: built only by
// `make fuzz`, with `-Xswiftc -sanitize=fuzzer,address`; a fuzzer has no main of its own, so
// a plain `swift build` of this package does not link, and the root package never builds it.
let package = Package(
  name: "oprun-fuzz",
  dependencies: [
    .package(name: "oprun", path: "..")
  ],
  targets: [
    .executableTarget(
      name: "oprun-manifest-fuzzer",
      dependencies: [.product(name: "OprunCore", package: "oprun")],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    ),
    .executableTarget(
      name: "oprun-state-fuzzer",
      dependencies: [
        .product(name: "OprunCore", package: "oprun"), .product(name: "OprunRuntime", package: "oprun"),
      ],
      swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    ),
  ],
  swiftLanguageModes: [.v6]
)
