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
        // The engine and its plug-in API: a third-party network depends on this alone.
        .library(name: "Mediation", targets: ["Mediation"]),
        // The standard networks (Elo, Nitx, Qartvelo, the AdMob-like fallback) and transports.
        .library(name: "Adapters", targets: ["Adapters"]),
        // Virtual time: a manual clock and its serial executor (deterministic runs of the engine).
        .library(name: "MediationVirtualTime", targets: ["MediationVirtualTime"]),
        // Scripted networks and an adapter conformance check for hosts' tests; re-exports virtual time.
        .library(name: "MediationTestKit", targets: ["MediationTestKit"]),
        // The `mediate` command as a library, so a host can build it with its own networks.
        .library(name: "MediationCLI", targets: ["MediationCLI"]),
        // What-if runs of a placement on the real engine in virtual time, against a market model.
        .library(name: "MediationSimulation", targets: ["MediationSimulation"]),
        // Learned eCPMs of fixed-price line items from the networks' revenue reports (R23).
        .library(name: "MediationLearning", targets: ["MediationLearning"]),
        .executable(name: "mediate", targets: ["mediate"]),
        .executable(name: "chat-host-example", targets: ["ChatHostExample"]),
        .executable(name: "mediation-bench", targets: ["MediationBenchmarks"]),
        .executable(name: "simulation-speed", targets: ["SimulationSpeed"]),
        .executable(name: "experiment-simulation", targets: ["ExperimentSimulation"]),
    ],
    targets: [
        // MARK: Core
        // SHA-256 and Ed25519 (signed remote configs) come from OpenSSL's libcrypto on Linux
        // (CryptoKit on Apple platforms).
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // HTTP on Linux is the system's libcurl, used directly (URLSession on Apple platforms):
        // FoundationNetworking's URLSession stops the process on some malformed responses.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "Mediation",
            dependencies: [
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
                .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Networks
        .target(
            name: "Adapters",
            dependencies: [
                "Mediation",
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Virtual time
        .target(
            name: "MediationVirtualTime",
            dependencies: ["Mediation"],
            swiftSettings: swiftSettings
        ),

        // MARK: Test kit
        .target(
            name: "MediationTestKit",
            dependencies: ["Mediation", "MediationVirtualTime"],
            swiftSettings: swiftSettings
        ),

        // MARK: Simulation
        .target(
            name: "MediationSimulation",
            dependencies: ["Mediation", "MediationVirtualTime", "MediationLearning"],
            swiftSettings: swiftSettings
        ),

        // MARK: Learning
        .target(
            name: "MediationLearning",
            dependencies: ["Mediation"],
            swiftSettings: swiftSettings
        ),

        // MARK: Command line
        .target(
            name: "MediationCLI",
            dependencies: ["Mediation", "Adapters", "MediationVirtualTime", "MediationSimulation", "MediationLearning"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "mediate",
            dependencies: ["MediationCLI", "Adapters"],
            swiftSettings: swiftSettings
        ),

        // MARK: Example and benchmark
        // The example host's own network, a library so that the host and the tests share it.
        .target(
            name: "HouseAds",
            dependencies: ["Mediation"],
            path: "Examples/HouseAds",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "ChatHostExample",
            dependencies: ["Mediation", "Adapters", "MediationTestKit", "HouseAds"],
            path: "Examples/ChatHost",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MediationBenchmarks",
            dependencies: ["Mediation", "Adapters", "MediationTestKit", "MediationSimulation", "MediationLearning"],
            path: "Benchmarks/MediationBenchmarks",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "SimulationSpeed",
            dependencies: ["Mediation", "Adapters", "MediationSimulation"],
            path: "Benchmarks/SimulationSpeed",
            swiftSettings: swiftSettings
        ),

        // The experiment report's statistics on simulated users (docs/experiments.md).
        .executableTarget(
            name: "ExperimentSimulation",
            dependencies: ["MediationLearning", "MediationSimulation"],
            path: "Benchmarks/ExperimentSimulation",
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .testTarget(
            name: "MediationTests",
            dependencies: ["Mediation", "MediationTestKit"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediationVirtualTimeTests",
            dependencies: ["MediationVirtualTime", "Mediation"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediationTestKitTests",
            dependencies: ["MediationTestKit", "Mediation"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AdaptersTests",
            dependencies: ["Adapters", "Mediation", "MediationTestKit", "HouseAds"],
            resources: [.copy("Loopback/loopback_server.py")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediationSimulationTests",
            dependencies: ["MediationSimulation", "Mediation", "MediationTestKit", "Adapters", "MediationLearning"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediationLearningTests",
            dependencies: ["MediationLearning", "Mediation", "Adapters"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MediationCLITests",
            dependencies: ["MediationCLI", "Mediation", "Adapters", "MediationTestKit", "MediationSimulation", "MediationLearning"],
            // The schema check is a Python script the tests run from the source tree.
            exclude: ["Schema/check_schema.py"],
            swiftSettings: swiftSettings
        ),
    ]
)
