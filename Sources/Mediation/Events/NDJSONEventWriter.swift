import Foundation

extension MediationEvent {
    /// Writes the engine's events as NDJSON: one event record per line, keys sorted (the format is
    /// in docs/simulation.md, "Replay of a recorded run"), for a log a replay reads back
    /// (`mediate simulate --replay FILE`) and the learner reads (`mediate optimize --events FILE`).
    /// Lines carry what events carry (ids, prices, instants, traces), never chat content or user
    /// data.
    ///
    /// ```swift
    /// let handle = try FileHandle(forWritingTo: url)
    /// let writer = MediationEvent.NDJSONWriter { line in handle.write(Data(line.utf8)) }
    /// let engine = try MediationEngine(configuration: configuration, registry: .standard,
    ///                                  onEvent: { writer.record($0) })
    /// // or, from a stream: Task { await writer.record(engine.events()) }
    /// ```
    public final class NDJSONWriter: Sendable {
        private let sink: @Sendable (String) -> Void
        private let state = Locked((lines: 0, failures: 0))

        /// Creates a writer.
        /// - Parameter sink: receives each line, newline included, in event order; called under
        ///   the writer's lock, so it must not block for long.
        public init(sink: @escaping @Sendable (String) -> Void) {
            self.sink = sink
        }

        /// The NDJSON line of `event` (newline included), or `nil` when it cannot be encoded (a
        /// trace with a non-finite number).
        /// - Parameter event: an engine event.
        package static func line(for event: MediationEvent) -> String? {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(EventRecord(event)) else { return nil }
            return String(decoding: data, as: UTF8.self) + "\n"
        }

        /// Writes `event` as one line.
        /// - Parameter event: an engine event (e.g. from the engine's `onEvent` handler).
        public func record(_ event: MediationEvent) {
            let line = MediationEvent.NDJSONWriter.line(for: event)
            state.withLock { state in
                guard let line else {
                    state.failures += 1
                    return
                }
                sink(line)
                state.lines += 1
            }
        }

        /// Writes every event of `events` until the stream ends.
        /// - Parameter events: e.g. ``MediationEngine/events()``.
        public func record(_ events: AsyncStream<MediationEvent>) async {
            for await event in events { record(event) }
        }

        /// Lines written so far.
        public var linesWritten: Int { state.withLock { $0.lines } }
        /// Events that could not be encoded (and were skipped).
        public var encodingFailures: Int { state.withLock { $0.failures } }
    }
}
