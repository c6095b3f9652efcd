/// The warnings adapters log while they work for an auction source, kept for that source's
/// trace line (`adapter_warning`, ``TraceIssues/adapterWarningCode``). The engine gives every
/// adapter an ``AttributingLogger``, which files each warning under the source the logging
/// task works for (``SourceAttribution/current``, set by the auction around each `loadAd` and
/// inherited by the tasks the adapter starts): the attribution the engine already has, so no
/// matching of log sources. Warnings logged outside a source's request (a tracking ping, a
/// configure) go to the host's logger only.
package final class AdapterWarnings: Sendable {
    /// The most warnings kept per source, and the most characters of each (network text is
    /// untrusted, R16).
    package static let maximumPerSource = 20
    package static let maximumLength = 300
    /// The most auctions with warnings not yet taken (those logged after their auction's
    /// trace was made, e.g. by a source that answered late, are dropped oldest first).
    package static let maximumAuctions = 64

    private struct Pending {
        /// By auction id, then line item id, in the order logged.
        var byAuction: [String: [String: [AuctionTrace.Source.Issue]]] = [:]
        /// Auction ids, oldest first.
        var order: [String] = []
    }

    private let pending = Locked(Pending())

    package init() {}

    /// Files `message` under `source`.
    package func record(_ message: String, for source: SourceAttribution) {
        let issue = AuctionTrace.Source.Issue(code: TraceIssues.adapterWarningCode, message: String(message.prefix(Self.maximumLength)))
        pending.withLock { pending in
            if pending.byAuction[source.auctionID] == nil {
                if pending.order.count >= Self.maximumAuctions {
                    pending.byAuction[pending.order.removeFirst()] = nil
                }
                pending.order.append(source.auctionID)
            }
            var list = pending.byAuction[source.auctionID, default: [:]][source.lineItemID, default: []]
            guard list.count < Self.maximumPerSource else { return }
            list.append(issue)
            pending.byAuction[source.auctionID, default: [:]][source.lineItemID] = list
        }
    }

    /// The warnings filed for auction `auctionID`, by line item id, each list in the order
    /// logged; removed.
    package func take(auctionID: String) -> [String: [AuctionTrace.Source.Issue]] {
        pending.withLock { pending in
            guard !pending.byAuction.isEmpty, let taken = pending.byAuction.removeValue(forKey: auctionID) else { return [:] }
            pending.order.removeAll { $0 == auctionID }
            return taken
        }
    }
}

/// The logger the engine gives adapters: the host's logger, plus each warning (and error)
/// logged while a task works for an auction source filed for that source's trace line.
package struct AttributingLogger: MediationLogger {
    /// The host's logger; every line reaches it unchanged.
    package let base: any MediationLogger
    /// Where attributed warnings are filed.
    package let warnings: AdapterWarnings

    package init(base: any MediationLogger, warnings: AdapterWarnings) {
        self.base = base
        self.warnings = warnings
    }

    package func log(_ level: LogLevel, _ message: String, source: String) {
        base.log(level, message, source: source)
        if level >= .warning, let attribution = SourceAttribution.current {
            warnings.record(message, for: attribution)
        }
    }
}
