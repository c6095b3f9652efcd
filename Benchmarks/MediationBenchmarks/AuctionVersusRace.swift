import Mediation

/// Times the engine's auction against the bare race over the same `count` instant sources,
/// in interleaved batches so both see the same machine conditions.
struct AuctionVersusRace {
    /// Microseconds per auction, one sample per batch.
    var engine: [Double] = []
    /// Microseconds per bare race, one sample per batch.
    var floor: [Double] = []
    /// Accounting problems (every ad must be released exactly once: the winner by the caller).
    var violations: [String] = []

    static func run(sources count: Int, samples: Int, batch: Int, warmup: Int, hearNotices: Bool = true) async -> AuctionVersusRace {
        let ledger = AdLedger()
        let auction = instantAuction(count: count, ledger: ledger, hearNotices: hearNotices)
        let adapters = auction.adapters
        let fixedPrices = auction.fixedPrices
        let request = benchRequest

        func engineBatch(_ size: Int) async {
            for _ in 0..<size {
                let outcome = await auction.run()
                outcome?.winner?.ad.releaseResources()
            }
        }
        func floorBatch(_ size: Int) async {
            for _ in 0..<size {
                let winner = await bareRace(adapters, fixedPrices: fixedPrices, request: request)
                winner?.releaseResources()
            }
        }

        await engineBatch(warmup)
        await floorBatch(warmup)
        var result = AuctionVersusRace()
        result.engine.reserveCapacity(samples)
        result.floor.reserveCapacity(samples)
        for sample in 0..<samples {
            // Alternate which goes first, so neither always follows the other.
            if sample % 2 == 0 {
                result.engine.append(await measure { await engineBatch(batch) }.microseconds / Double(batch))
                result.floor.append(await measure { await floorBatch(batch) }.microseconds / Double(batch))
            } else {
                result.floor.append(await measure { await floorBatch(batch) }.microseconds / Double(batch))
                result.engine.append(await measure { await engineBatch(batch) }.microseconds / Double(batch))
            }
        }
        // Late answers (a cancelled fixed-price source answering after the end) are released on
        // arrival; give them a moment to land before counting.
        await settleLedger(ledger)
        result.violations = ledger.violations()
        return result
    }
}

extension AuctionVersusRace {
    /// Runs `auctions` engine auctions of the overhead benchmark's placement (`sources` instant
    /// sources), or as many bare races of the same adapters when `races`, and nothing else,
    /// for an instruction or allocation count.
    /// - Returns: how many auctions (or races) ran.
    static func profile(auctions: Int, sources count: Int = 4, hearNotices: Bool, races: Bool = false) async -> Int {
        let ledger = AdLedger()
        let auction = instantAuction(count: count, ledger: ledger, hearNotices: hearNotices)
        if races {
            for _ in 0..<auctions {
                let winner = await bareRace(auction.adapters, fixedPrices: auction.fixedPrices, request: benchRequest)
                winner?.releaseResources()
            }
            return auctions
        }
        for _ in 0..<auctions {
            let outcome = await auction.run()
            outcome?.winner?.ad.releaseResources()
        }
        return auctions
    }
}

/// Yields until every loaded ad is accounted for (shown or released) and the ledger has been
/// quiet for 100 yields, or 10 s have passed. Late answers (a cancelled source answering after
/// its auction ended) are released on arrival by tasks that may still be waiting for a core; a
/// quiet period alone is not enough on a loaded 2-core machine (a settle of 100 quiet yields
/// once counted a late answer still in flight as unaccounted). A real leak stays unbalanced for
/// the whole 10 s and is reported.
func settleLedger(_ ledger: AdLedger) async {
    var last = ledger.snapshot
    var quiet = 0
    let clock = ContinuousClock()
    let giveUp = clock.now + .seconds(10)
    while clock.now < giveUp {
        await Task.yield()
        let now = ledger.snapshot
        if now == last { quiet += 1 } else { quiet = 0; last = now }
        if quiet >= 100, now.shown + now.released >= now.loaded { return }
        if quiet >= 100_000 { return } // quiet long after the late answers: the balance is final
    }
}
