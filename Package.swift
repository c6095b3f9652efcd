// swift-tools-version: 6.0
import PackageDescription

// MARK: - Shared settings

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// MARK: - Package

let package = Package(
    name: "SwiftMediation",
    platforms: [.iOS(.v16), .macOS(.v13)],
    products: [
        .library(name: "Mediation", targets: ["Mediation"]),
        .library(name: "Adapters", targets: ["Adapters"]),
        .executable(name: "mediate", targets: ["MediationCLI"]),
        .executable(name: "chat-host-example", targets: ["ChatHostExample"]),
        .executable(name: "mediation-bench", targets: ["MediationBenchmarks"]),
    ],
    targets: [
        // MARK: Core
        .target(name: "Mediation", swiftSettings: swiftSettings),

        // MARK: Networks
        // SHA-256 comes from OpenSSL's libcrypto on Linux (CryptoKit on Apple platforms).
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "Adapters",
            dependencies: [
                "Mediation",
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executables
        .executableTarget(
            name: "MediationCLI",
            dependencies: ["Mediation", "Adapters"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ChatHostExample",
            dependencies: ["Mediation", "Adapters"],
            path: "Examples/ChatHost",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MediationBenchmarks",
            dependencies: ["Mediation", "Adapters"],
            path: "Benchmarks/MediationBenchmarks",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(
            name: "MediationTestSupport",
            dependencies: ["Mediation"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediationTests",
            dependencies: ["Mediation", "MediationTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdaptersTests",
            dependencies: ["Adapters", "Mediation", "MediationTestSupport"],
            resources: [.copy("Loopback/loopback_server.py")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediationCLITests",
            dependencies: ["MediationCLI", "Mediation", "Adapters", "MediationTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
