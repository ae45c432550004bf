// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "oprun",
  products: [
    .executable(name: "oprun", targets: ["oprun"]),
    // for the fuzzers under Fuzz/, which build the manifest front end and the readers of
    // `.oprun/` on their own
    .library(name: "OprunCore", targets: ["OprunCore"]),
    .library(name: "OprunRuntime", targets: ["OprunRuntime"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
  ],
  targets: [
    // core · pure: manifest, graph, operation-queue semantics
    .systemLibrary(
      name: "CYAML",
      pkgConfig: "yaml-0.1",
      providers: [.apt(["libyaml-dev"])]
    ),
    .target(name: "OprunCore", dependencies: ["CYAML"]),

    // runtime · processes, signals, pipes, output
    .target(name: "COprunSystem"),
    // libcurl, loaded on first use by an HTTP cache: no link-time dependency
    .target(name: "COprunHTTP", dependencies: ["COprunSystem"]),
    .target(
      name: "OprunRuntime",
      dependencies: ["OprunCore", "COprunSystem", "COprunHTTP"]
    ),

    // CLI
    .executableTarget(
      name: "oprun",
      dependencies: [
        "OprunRuntime",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),

    // benchmarks (run by `make bench`, never by `make test`)
    .executableTarget(name: "oprun-bench", dependencies: ["OprunCore"], path: "Benchmarks/oprun-bench"),

    // tests
    .testTarget(
      name: "OprunCoreTests",
      dependencies: ["OprunCore", .product(name: "PropertyBased", package: "swift-property-based")],
      resources: [.copy("Fixtures")]
    ),
    .testTarget(name: "OprunRuntimeTests", dependencies: ["OprunRuntime"]),
    .testTarget(name: "EndToEndTests", dependencies: ["OprunCore"]),
  ],
  swiftLanguageModes: [.v6]
)
