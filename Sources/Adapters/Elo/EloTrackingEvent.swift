import Foundation

/// The tracked events (Elo seed, `EloTrackingEvent`).
package enum EloTrackingEvent: String, Sendable, Hashable, CaseIterable {
    /// The ad was rendered.
    case render
    /// The ad counted its impression.
    case impression
    /// The ad was clicked.
    case click
    /// The host's browser opened the click URL (analytics only).
    case browserOpen = "browser_open"
    /// The host's browser closed (analytics only).
    case browserClose = "browser_close"
}
