/// When the adapter of a network that a new configuration removed (or changed) may be shut
/// down: once nothing uses it (engine rule R22, "nothing lost"). A pure value the engine keeps
/// under its lock.
///
/// Uses are counted per snapshot (``EngineSnapshot/generation``): a running auction holds its
/// snapshot from start to end (a one-shot auction's winner then holds it, ``SnapshotHold``,
/// until its caller drops the winner), a placement's current ad holds the snapshot its auction
/// ran under for as long as it is current (its impression and clicks still reach its network),
/// and a configuration change holds the old snapshot until every placement has taken the new
/// one.
/// A snapshot that is no longer current and no longer used is dropped; an adapter that no
/// remaining snapshot (current or used) holds is handed out once, to be shut down.
struct AdapterRetirement {
    /// Uses per snapshot generation.
    private var uses: [UInt64: Int] = [:]
    /// Superseded snapshots still in use, by generation.
    private var superseded: [UInt64: EngineSnapshot] = [:]
    /// Networks of superseded snapshots not in the current one, waiting for their last user.
    private var retiring: [NetworkHandle] = []

    /// Counts one use of snapshot `generation`.
    mutating func acquire(_ generation: UInt64) {
        uses[generation, default: 0] += 1
    }

    /// Ends one use of snapshot `generation`.
    /// - Parameters:
    ///   - generation: the snapshot.
    ///   - current: the snapshot in force.
    /// - Returns: the adapters to shut down now (each once).
    mutating func release(_ generation: UInt64, current: EngineSnapshot) -> [NetworkHandle] {
        guard let count = uses[generation] else { return [] }
        if count <= 1 { uses[generation] = nil } else { uses[generation] = count - 1 }
        // The usual case, every auction: no configuration change pending, nothing to collect.
        guard !retiring.isEmpty || !superseded.isEmpty else { return [] }
        return collect(current: current)
    }

    /// `old` is replaced by `new`: the networks of `old` that `new` does not keep wait for the
    /// last use of any snapshot holding them.
    /// - Returns: the adapters to shut down now (each once).
    mutating func supersede(_ old: EngineSnapshot, by new: EngineSnapshot) -> [NetworkHandle] {
        superseded[old.generation] = old
        let kept = Set(new.networks.map(ObjectIdentifier.init))
        for handle in old.networks where !kept.contains(ObjectIdentifier(handle)) && !retiring.contains(where: { $0 === handle }) {
            retiring.append(handle)
        }
        return collect(current: new)
    }

    /// The networks retired by a configuration change whose adapters still serve a running
    /// auction or a current ad (they hear the host's signals until they are shut down).
    var retiringNetworks: [NetworkHandle] { retiring }

    /// Every retiring network's adapter, for shutdown (the engine's own).
    mutating func takeAll() -> [NetworkHandle] {
        defer {
            retiring.removeAll()
            superseded.removeAll()
        }
        return retiring
    }

    /// Drops superseded snapshots nobody uses, and hands out the retiring networks no remaining
    /// snapshot holds.
    private mutating func collect(current: EngineSnapshot) -> [NetworkHandle] {
        for generation in superseded.keys where uses[generation] == nil {
            superseded[generation] = nil
        }
        var held = Set(current.networks.map(ObjectIdentifier.init))
        for snapshot in superseded.values {
            for handle in snapshot.networks { held.insert(ObjectIdentifier(handle)) }
        }
        let free = retiring.filter { !held.contains(ObjectIdentifier($0)) }
        retiring.removeAll { !held.contains(ObjectIdentifier($0)) }
        return free
    }
}
