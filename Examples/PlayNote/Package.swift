// swift-tools-version:6.0
import PackageDescription

// A separate package that uses Staccato as a dependency, by path, the way another project would.
let package = Package(
    name: "PlayNote",
    dependencies: [.package(name: "Staccato", path: "../..")],
    targets: [
        .executableTarget(name: "PlayNote", dependencies: [.product(name: "Staccato", package: "Staccato")]),
    ]
)
