/// The stable codes of the errors and warnings on a source's trace line (Prebid-style, one
/// list of each per source), and how an outcome maps to them.
///
/// Codes: `http_error` (the network answered an error status), `request_failed` (any other
/// failed request; the message names the error's kind and code), `invalid_price` (loss reason
/// 3), `timeout` (no answer by the source's limit), `late_answer` (a warning: an answer after
/// the source's outcome was set), `adapter_warning` (what the adapter logged as a warning
/// while it worked for this source: the engine attributes it, ``AdapterWarnings``),
/// `anchored_for_inline` (a warning: the network serves no inline banners, so this inline
/// banner auction asked it for its anchored adaptive banner of the slot's width;
/// ``NetworkAdapterFactory/servesInlineBanners``).
package enum TraceIssues {
    /// The code of a warning an adapter logged while the auction ran.
    package static let adapterWarningCode = "adapter_warning"

    /// The errors an outcome implies: a failed request, an invalid price, a timeout.
    /// - Parameters:
    ///   - outcome: the source's outcome.
    ///   - limit: the source's effective limit (R3a), if it was asked.
    /// - Returns: at most one issue.
    package static func errors(for outcome: SourceOutcome, limit: Duration?) -> [AuctionTrace.Source.Issue] {
        switch outcome {
        case .error(let error):
            if let status = error.httpStatus {
                return [AuctionTrace.Source.Issue(code: "http_error", message: "HTTP \(status): \(error.kind)(\(error.code)): \(error.message)")]
            }
            return [AuctionTrace.Source.Issue(code: "request_failed", message: error.description)]
        case .lost(let reason) where reason == .invalidResponse:
            return [AuctionTrace.Source.Issue(code: "invalid_price", message: reason.description)]
        case .timeout(.networkPaused):
            return [AuctionTrace.Source.Issue(code: "timeout", message: "no answer before its network was paused; not waited for after that")]
        case .timeout(let which):
            let length = limit.map { " (\(Int64($0.milliseconds.rounded())) ms)" } ?? ""
            return [AuctionTrace.Source.Issue(code: "timeout", message: "no answer by the \(which.rawValue) limit\(length)")]
        case .won, .lost, .noFill, .cancelled, .notAsked:
            return []
        }
    }

    /// The code of the warning on the line of a source that serves no inline banners, asked in an
    /// inline banner auction for its anchored adaptive banner.
    package static let anchoredForInlineCode = "anchored_for_inline"

    /// The warning of a source asked for its anchored adaptive banner of `size` in an inline
    /// banner auction, because its network serves no inline banners.
    /// - Parameter size: the anchored adaptive size it was asked for, in points.
    package static func anchoredForInline(_ size: AdSize) -> AuctionTrace.Source.Issue {
        AuctionTrace.Source.Issue(code: anchoredForInlineCode, message: "the network serves no inline banners: asked for its anchored adaptive banner, \(size) pt")
    }

    /// The warning of a late answer.
    /// - Parameter late: the late answer on the line.
    package static func lateAnswer(_ late: AuctionTrace.Source.LateAnswer) -> AuctionTrace.Source.Issue {
        let at = Int64(late.atOffsetMilliseconds.isFinite ? min(max(late.atOffsetMilliseconds.rounded(), -9e18), 9e18) : 0)
        return AuctionTrace.Source.Issue(code: "late_answer", message: late.released ? "answered at \(at) ms, after its outcome; its ad was released" : "answered at \(at) ms, after its outcome")
    }
}
