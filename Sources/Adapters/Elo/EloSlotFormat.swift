/// The two formats Elo serves; the slot decides which (Elo seed, "loadAd parameters" and
/// "Formats"): the card needs at least 192 pt of height, the strip fits a slot from 72 to 191 pt,
/// below 72 pt no format fits, and an unbounded height gets the card.
public enum EloAdFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// A chat-row card, 87 to 175 pt tall; needs a slot of at least 192 pt.
    case card
    /// A two-line strip for slots 72 to 191 pt tall.
    case strip

    /// The smallest slot height the card takes, in points.
    package static let cardMinimumSlotHeight = 192
    /// The smallest slot height the strip takes, in points.
    package static let stripMinimumSlotHeight = 72
    /// The height Elo's card is drawn at when the server gives none, in points (its tallest).
    package static let defaultCardHeight = 175.0
    /// The height of the strip when the server gives none, in points.
    package static let defaultStripHeight = 72.0

    /// The format the server chooses for a slot.
    /// - Parameter maxHeight: the slot's height in whole points (already rounded down), or
    ///   `nil` when unbounded.
    /// - Returns: `.card` for `nil` or >= 192, `.strip` for 72 ... 191, `nil` below 72.
    package static func choose(forMaxHeight maxHeight: Int?) -> EloAdFormat? {
        guard let maxHeight else { return .card }
        if maxHeight >= cardMinimumSlotHeight { return .card }
        if maxHeight >= stripMinimumSlotHeight { return .strip }
        return nil
    }

    /// Whether this format is the one for a slot of `maxHeight` whole points (`nil` =
    /// unbounded): the card for a slot of 192 pt or more or unbounded, the strip for a slot from
    /// 72 to 191 pt (Elo document: "the strip fits a slot from 72 to 191 points", "Leaving
    /// maxHeight nil returns the card"). A strip in an unbounded slot or one of 192 pt or more,
    /// and a card under 192 pt, do not fit.
    /// - Parameter maxHeight: the slot's height in whole points.
    /// - Returns: `true` when the slot's range is this format's.
    package func fits(maxHeight: Int?) -> Bool {
        EloAdFormat.choose(forMaxHeight: maxHeight) == self
    }

    /// Rounds a slot bound down to whole points (Elo seed: "Rounded down to whole points").
    /// - Parameter points: a bound in points; `nil`, NaN and +infinity mean unbounded.
    /// - Returns: the whole points (negative values become 0), or `nil` when unbounded.
    package static func wholePoints(_ points: Double?) -> Int? {
        guard let points, !points.isNaN, points != .infinity else { return nil }
        if points <= 0 { return 0 }
        if points >= Double(Int32.max) { return Int(Int32.max) }
        return Int(points.rounded(.down))
    }
}
