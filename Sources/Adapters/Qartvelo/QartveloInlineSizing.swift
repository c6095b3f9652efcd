import Mediation

/// Qartvelo's inline banner fit (Qartvelo seed, "Inline banners"): the ad takes the biggest
/// size that fits the view's width and the inline maximum height keeping its proportions, is
/// centred horizontally, and the slot's height is exactly the ad's height. Pure functions;
/// every value is in points.
package enum QartveloInlineSizing {
    /// The default inline maximum height, 250 pt.
    package static let defaultMaxHeight: Double = 250
    /// The smallest inline maximum height allowed, 32 pt.
    package static let minimumMaxHeight: Double = 32

    /// The result of fitting a creative into an inline slot.
    package struct Fit: Hashable, Sendable {
        /// The ad's size in points; also the slot's size (the slot is exactly as tall as the ad,
        /// and as wide as the ad).
        package var size: AdSize
        /// The ad's left edge inside the view, in points: `(viewWidth - size.width) / 2`.
        package var originX: Double
    }

    /// The inline maximum height for a slot: its `maxHeight`, else 250 pt.
    /// - Parameter slot: the placement's slot bounds, in points.
    /// - Returns: the maximum height in points, or `nil` when it is under 32 pt or not finite
    ///   (a configuration error).
    package static func maxHeight(for slot: SlotSize) -> Double? {
        let value = slot.maxHeight ?? defaultMaxHeight
        guard value.isFinite, value >= minimumMaxHeight else { return nil }
        return value
    }

    /// Aspect-fits a creative of proportions `creative` into `width` x `maxHeight`, scaling up
    /// or down: `scale = min(width / creative.width, maxHeight / creative.height)`.
    ///
    /// Only the creative's proportions matter: an image is aspect-fit, so its pixel count
    /// (Retina artwork such as 960x150 or a standard 320x50) changes its sharpness, not its size.
    /// - Parameters:
    ///   - creative: the creative's size in any unit (artwork pixels or points).
    ///   - width: the view's width in points.
    ///   - maxHeight: the inline maximum height in points.
    /// - Returns: the fitted size and its centred origin, or `nil` when a dimension is not
    ///   finite and positive.
    package static func fit(_ creative: AdSize, width: Double, maxHeight: Double) -> Fit? {
        guard creative.width.isFinite, creative.height.isFinite, creative.width > 0, creative.height > 0,
              width.isFinite, maxHeight.isFinite, width > 0, maxHeight > 0
        else { return nil }
        // scale = min(width / creative.width, maxHeight / creative.height), compared and
        // applied by cross-multiplying so whole numbers stay exact and the limiting side is
        // set exactly (rounding never leaves the ad a hair too big for the slot).
        let size = width * creative.height <= maxHeight * creative.width
            ? AdSize(width: width, height: creative.height * width / creative.width)
            : AdSize(width: creative.width * maxHeight / creative.height, height: maxHeight)
        return Fit(size: size, originX: (width - size.width) / 2)
    }
}
