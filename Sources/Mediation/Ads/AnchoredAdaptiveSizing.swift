/// The anchored adaptive banner size (Qartvelo document, "Banner"): the slot is the container's
/// full width, and the height is `floor(width x 50 / 320)`, bounded to 50...90 pt and to 15% of
/// the screen height, never under 50 pt. Qartvelo uses it, and so does the AdMob-like fallback
/// network for anchored banners, because the Qartvelo document promises that the two networks'
/// heights match for the same width; the engine asks it of a network that serves no inline
/// banners when an inline placement asks that network (``NetworkAdapterFactory/servesInlineBanners``).
/// Pure functions; every value is in points.
package enum AnchoredAdaptiveSizing {
    /// The smallest anchored height, 50 pt (also the floor under the screen-height cap).
    package static let minimumHeight: Double = 50
    /// The largest anchored height, 90 pt.
    package static let maximumHeight: Double = 90
    /// The screen-height cap, in percent of the screen height: 15.
    package static let screenHeightCapPercent: Double = 15

    /// The width an anchored banner is laid out at: the slot's `maxWidth` (the container's
    /// width) when the placement gives one, else the screen's width.
    /// - Parameters:
    ///   - slot: the placement's slot bounds, in points.
    ///   - screen: the device's screen, in points.
    /// - Returns: the banner width in points.
    package static func slotWidth(for slot: SlotSize, screen: AdRequest.Device.Screen) -> Double {
        slot.maxWidth ?? screen.width
    }

    /// The anchored adaptive height for a banner `width` points wide on a screen
    /// `screenHeight` points tall: `max(50, min(floor(width x 50 / 320), 90,
    /// floor(screenHeight x 15 / 100)))`. The cap is floored too so every height is a whole
    /// number of points (our reading; the seed does not say how the cap rounds).
    /// - Parameters:
    ///   - width: the banner width in points (finite, positive; other values give 50).
    ///   - screenHeight: the screen height in points.
    /// - Returns: the height in whole points, 50...90.
    package static func height(forWidth width: Double, screenHeight: Double) -> Double {
        guard width.isFinite, width > 0 else { return minimumHeight }
        let proportional = (width * 50 / 320).rounded(.down)
        var height = min(proportional, maximumHeight)
        if screenHeight.isFinite, screenHeight > 0 {
            height = min(height, (screenHeight * screenHeightCapPercent / 100).rounded(.down))
        }
        return max(height, minimumHeight)
    }

    /// The anchored adaptive slot for `slot` on `screen`: full width, adaptive height.
    /// - Parameters:
    ///   - slot: the placement's slot bounds, in points.
    ///   - screen: the device's screen, in points.
    /// - Returns: the slot size in points.
    package static func slotSize(for slot: SlotSize, screen: AdRequest.Device.Screen) -> AdSize {
        let width = slotWidth(for: slot, screen: screen)
        return AdSize(width: width, height: height(forWidth: width, screenHeight: screen.height))
    }
}
