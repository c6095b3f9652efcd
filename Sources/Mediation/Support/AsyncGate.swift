/// Runs async bodies one at a time, in arrival order: an actor's methods interleave at every
/// `await`, so the engine's configuration changes (which await each placement) go through this
/// gate instead.
actor AsyncGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once every body that arrived before it has finished.
    func run<Result: Sendable>(_ body: @Sendable () async -> Result) async -> Result {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        let result = await body()
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume() // the gate passes to the next body, still busy
        }
        return result
    }
}
