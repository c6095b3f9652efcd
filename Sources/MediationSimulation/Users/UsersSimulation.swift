import Foundation
import Mediation

/// How a users run runs: users, days, seed, jobs, the model, and where its events go.
package struct UsersOptions: Sendable {
    /// The most users a run takes.
    package static let maximumUsers = 10_000_000
    /// The most days a run takes.
    package static let maximumDays = 366
    /// The run's start when the configuration holds no experiment: 2026-12-01 00:00 UTC.
    package static let defaultStart = Date(timeIntervalSince1970: 1_796_083_200)

    /// The number of users, at least 1.
    package var users: Int
    /// The number of days, at least 1.
    package var days: Int
    /// The seed of every draw.
    package var seed: UInt64
    /// Shards run at once (the report is the same for any value).
    package var jobs = 1
    /// Users per shard.
    package var shardSize = 100
    /// How users behave.
    package var model = UsersModel()
    /// Where to write every engine event of run A as NDJSON, or `nil`.
    package var eventsURL: URL?

    /// Creates options with the documented defaults for the rest.
    package init(users: Int, days: Int, seed: UInt64, jobs: Int = 1) {
        self.users = users
        self.days = days
        self.seed = seed
        self.jobs = jobs
    }
}

extension Simulation {
    /// Runs `options.users` users through `options.days` days on the real engine
    /// (`docs/simulation.md`, "Users").
    /// - Parameters:
    ///   - configuration: the configuration, as loaded.
    ///   - configurationData: the configuration file's bytes, which the independent counter
    ///     reads itself.
    ///   - market: how the networks answer.
    ///   - placementID: the full-screen placement to drive, or `nil` for every full-screen one.
    ///   - options: users, days, seed, jobs, events.
    /// - Throws: ``SimulationError``: `unknown_placement`, `invalid_options` (a placement that is
    ///   not full-screen, none to drive, bounds), `invalid_market`, `invalid_configuration`,
    ///   `stalled` (the events file cannot be written).
    package static func runUsers(configuration: MediationConfiguration, configurationData: Data, market: Market, placementID: String?, options: UsersOptions) async throws(SimulationError) -> UsersReport {
        let setup = try usersSetup(configuration, configurationData, market: market, placementID: placementID, options: options)
        let totals = try await runUserShards([setup], options: options)
        return UsersReport(totals.runs[0], setup: setup, users: options.users)
    }

    /// Runs the same users through `a` and `b` (the same sessions, level ends, relaunches,
    /// clock changes and values) and reports per-user paired differences B − A.
    /// - Throws: as ``runUsers(configuration:configurationData:market:placementID:options:)``.
    package static func compareUsers(_ a: (MediationConfiguration, Data), _ b: (MediationConfiguration, Data), market: Market, placementID: String?, options: UsersOptions) async throws(SimulationError) -> UsersComparison {
        let setupA = try usersSetup(a.0, a.1, market: market, placementID: placementID, options: options)
        let setupB = try usersSetup(b.0, b.1, market: market, placementID: placementID, options: options)
        let totals = try await runUserShards([setupA, setupB], options: options)
        let reportA = UsersReport(totals.runs[0], setup: setupA, users: options.users)
        let reportB = UsersReport(totals.runs[1], setup: setupB, users: options.users)
        func difference(_ figure: String, _ a: Double, _ b: Double, _ moments: RunningMoments) -> FigureDifference {
            let half = moments.halfWidth95
            return FigureDifference(figure: figure, a: a, b: b, difference: moments.mean, interval: ConfidenceInterval(lower: moments.mean - half, upper: moments.mean + half), method: .paired)
        }
        let users = Double(max(1, options.users))
        return UsersComparison(a: reportA, b: reportB, differences: [
            difference("impressions_per_user", Double(reportA.impressions) / users, Double(reportB.impressions) / users, totals.impressionDifferences),
            difference("revenue_per_user_usd", reportA.revenueUSD / users, reportB.revenueUSD / users, totals.revenueDifferences),
        ])
    }

    /// What every user of one configuration shares.
    static func usersSetup(_ configuration: MediationConfiguration, _ data: Data, market: Market, placementID: String?, options: UsersOptions) throws(SimulationError) -> UsersRunSetup {
        guard (1...UsersOptions.maximumUsers).contains(options.users) else {
            throw SimulationError(code: .invalidOptions, message: "users must be from 1 to \(UsersOptions.maximumUsers), got \(options.users)")
        }
        guard (1...UsersOptions.maximumDays).contains(options.days) else {
            throw SimulationError(code: .invalidOptions, message: "days must be from 1 to \(UsersOptions.maximumDays), got \(options.days)")
        }
        let fullScreen: Set<AdFormat> = [.interstitial, .rewarded, .appOpen]
        var placements: [MediationConfiguration.Placement]
        if let placementID {
            guard let placement = configuration.placement(placementID) else {
                let known = configuration.placements.map(\.id).joined(separator: ", ")
                throw SimulationError(code: .unknownPlacement, message: "no placement \"\(placementID)\" in the configuration; it has: \(known)")
            }
            guard fullScreen.contains(placement.format) else {
                throw SimulationError(code: .invalidOptions, message: "placement \"\(placementID)\" is a \(placement.format.rawValue): users runs show full-screen placements (interstitial, rewarded, app_open)")
            }
            placements = [placement]
        } else {
            placements = configuration.placements.filter { fullScreen.contains($0.format) }
            guard !placements.isEmpty else {
                throw SimulationError(code: .invalidOptions, message: "the configuration has no full-screen placement (interstitial, rewarded, app_open) for users to see")
            }
        }
        let ids = placements.map(\.id)
        let networks: SimulatedNetworks
        do {
            try market.check(against: [configuration], placements: ids)
            networks = try SimulatedNetworks(configuration: configuration, market: market, seed: options.seed, placements: ids)
        } catch {
            throw SimulationError.market(error)
        }
        guard let rules = CapRules.read(data) else {
            throw SimulationError(code: .invalidConfiguration, message: "the configuration file is not a JSON object")
        }
        return UsersRunSetup(
            networks: networks,
            rules: rules,
            levelEndPlacements: placements.filter { $0.format != .appOpen }.map(\.id),
            appOpenPlacements: placements.filter { $0.format == .appOpen }.map(\.id),
            model: options.model,
            seed: options.seed,
            days: options.days,
            start: usersStart(data)
        )
    }

    /// The run's day 0: the earliest `start` of the configuration's experiments, at 00:00 UTC
    /// of its day, or ``UsersOptions/defaultStart``.
    static func usersStart(_ data: Data) -> Date {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], let experiments = root["experiments"] as? [Any] else {
            return UsersOptions.defaultStart
        }
        let formatter = ISO8601DateFormatter()
        let starts = experiments.compactMap { ($0 as? [String: Any])?["start"] as? String }.compactMap { formatter.date(from: $0) }
        guard let earliest = starts.min() else { return UsersOptions.defaultStart }
        return Date(timeIntervalSince1970: (earliest.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    }

    /// The totals of every configuration, and the paired per-user differences of the first two.
    struct UsersMultiTotals: Sendable {
        var runs: [UsersTotals]
        var impressionDifferences = RunningMoments()
        var revenueDifferences = RunningMoments()

        mutating func add(_ other: UsersMultiTotals) {
            for index in runs.indices { runs[index].add(other.runs[index]) }
            impressionDifferences.add(other.impressionDifferences)
            revenueDifferences.add(other.revenueDifferences)
        }
    }

    /// Runs every user in shards of `options.shardSize`, `options.jobs` at once, and adds the
    /// shards up in shard order (held shards at most 2 × jobs, so what a run keeps does not
    /// grow with its users); the events of each shard go to a file of its own, appended to the
    /// events file in shard order.
    static func runUserShards(_ setups: [UsersRunSetup], options: UsersOptions) async throws(SimulationError) -> UsersMultiTotals {
        let shardCount = (options.users + options.shardSize - 1) / options.shardSize
        let jobs = max(1, min(options.jobs, shardCount))
        let output: FileHandle?
        if let url = options.eventsURL {
            guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = try? FileHandle(forWritingTo: url) else {
                throw SimulationError(code: .invalidOptions, message: "cannot write the events file \(url.path)")
            }
            output = handle
        } else {
            output = nil
        }
        defer { try? output?.close() }
        let empty = UsersMultiTotals(runs: setups.map { _ in UsersTotals(days: options.days) })
        let result = await withTaskGroup(of: (Int, Result<(UsersMultiTotals, URL?), SimulationError>).self) { group -> Result<UsersMultiTotals, SimulationError> in
            var totals = empty
            var held: [Int: Result<(UsersMultiTotals, URL?), SimulationError>] = [:]
            var nextToStart = 0, nextToMerge = 0, running = 0
            while true {
                while running < jobs, nextToStart < shardCount, held.count + running < 2 * jobs {
                    let shard = nextToStart
                    group.addTask { (shard, await runUserShard(shard, setups: setups, options: options)) }
                    nextToStart += 1
                    running += 1
                }
                guard let (shard, result) = await group.next() else { break }
                running -= 1
                held[shard] = result
                while let next = held.removeValue(forKey: nextToMerge) {
                    switch next {
                    case .success(let (shardTotals, part)):
                        totals.add(shardTotals)
                        if let part, let output {
                            if let data = try? Data(contentsOf: part) { output.write(data) }
                            try? FileManager.default.removeItem(at: part)
                        }
                    case .failure(let error):
                        group.cancelAll()
                        return .failure(error)
                    }
                    nextToMerge += 1
                }
            }
            return .success(totals)
        }
        return try result.get()
    }

    /// Runs the users of shard `shard` under every configuration.
    private static func runUserShard(_ shard: Int, setups: [UsersRunSetup], options: UsersOptions) async -> Result<(UsersMultiTotals, URL?), SimulationError> {
        let users = (shard * options.shardSize)..<min(options.users, (shard + 1) * options.shardSize)
        var totals = UsersMultiTotals(runs: setups.map { _ in UsersTotals(days: options.days) })
        let part = options.eventsURL.map { $0.deletingLastPathComponent().appendingPathComponent(".\($0.lastPathComponent).part\(shard)") }
        let lines = part.flatMap(LineFile.init)
        if part != nil, lines == nil {
            return .failure(SimulationError(code: .invalidOptions, message: "cannot write beside the events file \(options.eventsURL?.path ?? "")"))
        }
        do throws(SimulationError) {
            for user in users {
                for (index, setup) in setups.enumerated() {
                    var sink: (@Sendable (String) -> Void)?
                    if index == 0, let lines { sink = { line in lines.write(line) } }
                    try await UserRunner.run(user: user, setup: setup, totals: &totals.runs[index], sink: sink)
                }
                if setups.count > 1, let a = totals.runs[0].perUserRevenue.last, let b = totals.runs[1].perUserRevenue.last,
                   let shownA = totals.runs[0].perUserImpressions.last, let shownB = totals.runs[1].perUserImpressions.last {
                    totals.revenueDifferences.add(b - a)
                    totals.impressionDifferences.add(Double(shownB - shownA))
                }
                for index in totals.runs.indices {
                    totals.runs[index].perUserRevenue.removeAll(keepingCapacity: true)
                    totals.runs[index].perUserImpressions.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            return .failure(error)
        }
        lines?.close()
        return .success((totals, part))
    }
}

/// Lines appended to a file through a buffer (one shard's events).
final class LineFile: Sendable {
    private let state: Locked<(handle: FileHandle, buffer: [UInt8])>

    init?(_ url: URL) {
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = try? FileHandle(forWritingTo: url) else { return nil }
        state = Locked((handle, []))
    }

    func write(_ line: String) {
        state.withLock { state in
            state.buffer.append(contentsOf: line.utf8)
            if state.buffer.count >= 1 << 16 {
                state.handle.write(Data(state.buffer))
                state.buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    func close() {
        state.withLock { state in
            state.handle.write(Data(state.buffer))
            state.buffer.removeAll()
            try? state.handle.close()
        }
    }
}
