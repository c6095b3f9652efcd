/// Why caps, pacing or the one-full-screen-ad rule refuse an impression now (`docs/caps.md`):
/// the rule that binds and when it frees.
public struct CapRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The rule, e.g. `placement:level_end 20/86400s`, `network:nitx pacing 600s`,
    /// `app 3/session`, `app full_screen_gap 30s`, `app one_full_screen (level_end presented)`.
    public var cap: String
    /// The first instant on the engine's clock at which it frees; `nil` when no instant does
    /// (a session cap frees at the next session, another full-screen ad when it is dismissed).
    public var retryAt: MediationInstant?

    /// Creates a refusal.
    /// - Parameters:
    ///   - cap: the rule that binds.
    ///   - retryAt: when it frees, if an instant does.
    public init(cap: String, retryAt: MediationInstant?) {
        self.cap = cap
        self.retryAt = retryAt
    }

    /// `placement:level_end 20/86400s until 86400.000s` or `app 3/session until the next session`.
    public var description: String {
        "\(cap) until \(retryAt.map { "\($0)" } ?? "a new session or dismissal")"
    }
}
