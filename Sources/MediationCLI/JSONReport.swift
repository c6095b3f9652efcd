import Foundation
import Mediation

/// What `mediate --placement ID --json` prints on standard output: one JSON object,
/// ```json
/// { "placement": "home_banner", "filled": true,
///   "winner": { "line_item": "…", "network": "…", "ecpm": 1.8, "creative_id": "…",
///               "ad_id": "…", "format": "banner", "size": { "width": 320, "height": 50 } },
///   "trace": { …the auction's trace (AuctionTrace's JSON)… } }
/// ```
/// `winner` is `null` on no fill; `config` says which configuration ran (`{"version", "source",
/// "update"?}`), and the trace's `config_version` says the same. Non-finite prices in the trace are written as the strings
/// `"NaN"`, `"Infinity"` and `"-Infinity"` so the output always parses.
struct JSONReport: Encodable {
    var placement: String
    var filled: Bool
    var winner: WinnerSummary?
    var trace: AuctionTrace
    /// `--debug`: `{"redacted", "body_cap", "dropped", "exchanges": [...]}`; absent otherwise.
    var debug: DebugReport.JSON?
    /// The configuration the auction ran under: `{"version", "source", "update"?}` (`update`:
    /// what the `--config-url` check came to).
    var configuration: Configuration?

    /// The configuration the auction ran under.
    struct Configuration: Encodable {
        var version: Int
        var source: MediationEngine.RemoteConfiguration.Update.Source
        var update: MediationEngine.RemoteConfiguration.Update?

        enum CodingKeys: String, CodingKey {
            case version, source, update
        }

        enum UpdateKeys: String, CodingKey {
            case outcome, code, message, path
            case runningVersion = "running_version"
            case offeredVersion = "offered_version"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(version, forKey: .version)
            try container.encode(source, forKey: .source)
            if let update {
                var nested = container.nestedContainer(keyedBy: UpdateKeys.self, forKey: .update)
                try nested.encode(update.outcome, forKey: .outcome)
                try nested.encode(update.code, forKey: .code)
                try nested.encode(update.message, forKey: .message)
                try nested.encodeIfPresent(update.path, forKey: .path)
                try nested.encode(update.runningVersion, forKey: .runningVersion)
                try nested.encodeIfPresent(update.offeredVersion, forKey: .offeredVersion)
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case placement, filled, winner, trace, debug
        case configuration = "config"
    }

    /// Builds the report of `outcome`.
    init(placementID: String, outcome: OneShotOutcome) {
        placement = placementID
        filled = outcome.isFilled
        winner = outcome.winner
        trace = outcome.trace
    }

    /// Writes `winner: null` explicitly, so a program can read the key either way.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(placement, forKey: .placement)
        try container.encode(filled, forKey: .filled)
        if let winner {
            try container.encode(winner, forKey: .winner)
        } else {
            try container.encodeNil(forKey: .winner)
        }
        try container.encode(trace, forKey: .trace)
        try container.encodeIfPresent(debug, forKey: .debug)
        try container.encodeIfPresent(configuration, forKey: .configuration)
    }

    /// Pretty-printed JSON with sorted keys and a trailing newline.
    /// - Throws: `EncodingError` (not expected: non-finite numbers are written as strings).
    func rendered() throws -> String {
        try ReportFormat.json(self)
    }
}
