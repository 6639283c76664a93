// swift-tools-version:6.0
//
// CellHost: chat message cells for the terminal, rendered by plugins loaded
// from shared libraries. `swift build` builds the host, the SDK and every
// plugin in Plugins/ as a .so beside the executable.
import PackageDescription

/// Shipped plugins: each is its own dynamic library product, loaded at run
/// time with dlopen like any third-party plugin.
let swiftPlugins = ["TextCell", "FileCell", "ImageCell", "VoiceCell"]
let cPlugins = ["PollCell"]

/// Release builds skip run-time exclusivity checks: the hot loops (wrapping,
/// encoding) touch a reused canvas per cluster, and the checks cost ~15% of
/// render time (docs/performance.md). Debug builds and tests keep them.
let fast: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

var products: [Product] = [
    .executable(name: "cellhost", targets: ["cellhost"]),
    .library(name: "CellHostCore", targets: ["CellHostCore"]),
    .library(name: "CellKit", targets: ["CellKit"]),
]
var targets: [Target] = [
    .target(name: "CellHostABI", path: "Sources/CellHostABI"),
    .systemLibrary(name: "CFFI", path: "Sources/CFFI", pkgConfig: "libffi",
                   providers: [.apt(["libffi-dev"])]),
    .systemLibrary(name: "CUTF8Proc", path: "Sources/CUTF8Proc", pkgConfig: "libutf8proc",
                   providers: [.apt(["libutf8proc-dev"])]),
    // libsndfile, linked by VoiceCell alone (it decodes voice notes), so the
    // host binary never links it.
    .systemLibrary(name: "CSndfile", path: "Sources/CSndfile", pkgConfig: "sndfile",
                   providers: [.apt(["libsndfile1-dev"])]),
    // The core is built in the Swift 6 language mode: complete concurrency
    // checking, so sharing state across threads is a compile error.
    .target(name: "CellHostCore", dependencies: ["CellHostABI", "CFFI", "CUTF8Proc"],
            swiftSettings: fast + [.swiftLanguageMode(.v6)]),
    .target(name: "CellKit", dependencies: ["CellHostABI", "CFFI"], swiftSettings: fast),
    .executableTarget(name: "cellhost", dependencies: ["CellHostCore", "CellHostABI"]),
    .testTarget(name: "CellHostCoreTests", dependencies: ["CellHostCore", "CellHostABI"]),
    .testTarget(name: "CellKitTests", dependencies: ["CellKit"]),
    // End-to-end tests run the built `cellhost` binary and the plugin .so files
    // beside it, so `swift build` runs before `swift test` (see README).
    .testTarget(name: "EndToEndTests", exclude: ["Fixtures"]),
]
// The image cell's libraries, linked only into libImageCell.so (never into
// `cellhost`): libchafa draws previews, CImageDecode decodes PNG, JPEG, WebP
// and GIF with libpng, libjpeg-turbo, libwebp and giflib.
targets.append(.systemLibrary(name: "CChafa", path: "Sources/CChafa", pkgConfig: "chafa",
                              providers: [.apt(["libchafa-dev"])]))
targets.append(.target(name: "CImageDecode", path: "Sources/CImageDecode",
                       linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("webp"),
                                        .linkedLibrary("webpdemux"), .linkedLibrary("gif")]))
let pluginDependencies: [String: [Target.Dependency]] = ["ImageCell": ["CChafa", "CImageDecode"]]
for name in swiftPlugins {
    products.append(.library(name: name, type: .dynamic, targets: [name]))
    targets.append(.target(name: name, dependencies: ["CellKit"] + (pluginDependencies[name] ?? []),
                           path: "Plugins/\(name)", swiftSettings: fast))
}
// VoiceCell reads voice notes with libsndfile; only its .so links it.
for target in targets where target.name == "VoiceCell" { target.dependencies.append("CSndfile") }
// A Swift plugin for the end-to-end tests (MixedSubclassTests). A target
// without a product: `swift build` compiles its objects, and the test links
// them into its own plugin directory, so no test plugin lands beside
// `cellhost`, where every run would load it.
targets.append(.target(name: "MixedSwiftCells", dependencies: ["CellKit"], path: "Tests/Plugins/MixedSwiftCells"))
for name in cPlugins {
    products.append(.library(name: name, type: .dynamic, targets: [name]))
    targets.append(.target(name: name, dependencies: ["CellHostABI"], path: "Plugins/\(name)"))
}

// FileCell finds file types from their content with libmagic. Only the
// FileCell target links it: the host binary never links a media library
// (MediaLinkingTests).
targets.append(.systemLibrary(name: "CMagic", path: "Sources/CMagic", pkgConfig: "libmagic",
                              providers: [.apt(["libmagic-dev"])]))
targets.first { $0.name == "FileCell" }?.dependencies.append("CMagic")

// The dispatch micro-benchmark (Benchmarks/dispatch.sh), built only when
// CELLHOST_BENCHMARKS=1: `swift build` and `swift test` never compile it.
if Context.environment["CELLHOST_BENCHMARKS"] == "1" {
    products.append(.executable(name: "dispatch-bench", targets: ["DispatchBench"]))
    targets.append(.executableTarget(name: "DispatchBench", dependencies: ["CellHostCore"], path: "Benchmarks/dispatch",
                                     swiftSettings: fast))
}

let package = Package(
    name: "CellHost",
    products: products,
    targets: targets,
    swiftLanguageModes: [.v5]
)
