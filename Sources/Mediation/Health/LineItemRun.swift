/// Whose failure a line item's failure is (engine rule R24): its own, or its network's.
///
/// A line item's failure is its own when its network answered, through another of its line
/// items, since this one began failing: some other line item of the network has answered
/// since this one's first failure after its last answer, and that answer is still its latest
/// verdict. Otherwise (nothing of the network answered since: it may be down as a whole) the
/// failure is the network's. A failure counts for the one or the other, never both: so when
/// every line item of a network fails from the same auction on, every failure is the
/// network's, exactly as if line items had no health of their own.
///
/// Auctions are numbered from 1 in the order the monitor records them, so the same auctions
/// give the same verdicts.
struct LineItemRun: Hashable, Sendable {
    /// The number of the auction of its latest answer; 0 when it never answered.
    private(set) var lastAnswer: UInt64 = 0
    /// The number of the auction of its first failure since its latest answer; 0 when its
    /// latest verdict is an answer (or it has none).
    private(set) var failingSince: UInt64 = 0

    /// Notes its verdict `signal` in auction number `auction` (`nil`: it said nothing).
    mutating func note(_ signal: HealthSignal?, auction: UInt64) {
        switch signal {
        case .success:
            lastAnswer = auction
            if failingSince != 0 { failingSince = 0 }
        case .failure:
            if failingSince == 0 { failingSince = auction }
        case nil:
            break
        }
    }

    /// Whether its latest verdict is an answer given in auction number `auction` or later.
    func answers(since auction: UInt64) -> Bool {
        failingSince == 0 && lastAnswer != 0 && lastAnswer >= auction
    }

    /// Whether it is failing on its own: it is failing, and one of `runs` (its network's line
    /// items; its own run among them changes nothing) answers since it began failing.
    func failsAlone<Runs: Sequence>(among runs: Runs) -> Bool where Runs.Element == LineItemRun {
        failingSince != 0 && runs.contains { $0.answers(since: failingSince) }
    }
}
