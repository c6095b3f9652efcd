import Mediation

/// How a Qartvelo banner is sized, decided once per request from the request's
/// ``MediationConfiguration/Placement/BannerSizing`` and the network's `adaptive` option (Qartvelo
/// seed, "Banner" and "Inline banners"; inline sizing wins over the adaptive option).
public enum QartveloBannerLayout: Hashable, Sendable {
    /// Anchored adaptive (the default): full width, `floor(width x 50 / 320)` pt high, bounded
    /// to 50...90 pt and to 15% of the screen height (Qartvelo seed, "Banner"); the creative is
    /// aspect-fit inside the slot and may leave space around it.
    case anchoredAdaptive
    /// Anchored with adaptive sizing off (`adaptive: false`): the creative's own size in points
    /// (the previous creative-height sizing), scaled down only when wider than the slot.
    case anchoredCreativeSize
    /// Inline: the biggest aspect fit into the width and this maximum height (points).
    case inline(maxHeight: Double)

    /// Where the ad sits and how big it is, in points.
    public struct Frame: Hashable, Sendable {
        /// The ad's (and the slot's) size: what ``LoadedAd/size`` reports.
        public var size: AdSize
        /// The creative's image inside the ad: its size after aspect fit.
        public var creativeSize: AdSize
        /// The creative's left edge inside the view (centred).
        public var creativeOriginX: Double
        /// The creative's top edge inside the slot (centred).
        public var creativeOriginY: Double
    }

    /// Lays out a creative in a view `width` points wide.
    /// - Parameters:
    ///   - creativePoints: the creative's natural size in points (artwork pixels / density).
    ///   - width: the view's width in points.
    ///   - screen: the device's screen (its height caps anchored heights).
    /// - Returns: the frame, or `nil` when a size is not finite and positive.
    package func frame(creativePoints: AdSize, width: Double, screen: AdRequest.Device.Screen) -> Frame? {
        guard width.isFinite, width > 0 else { return nil }
        switch self {
        case .anchoredAdaptive:
            let height = QartveloAnchoredSizing.height(forWidth: width, screenHeight: screen.height)
            guard let fit = QartveloInlineSizing.fit(creativePoints, width: width, maxHeight: height) else { return nil }
            return Frame(
                size: AdSize(width: width, height: height),
                creativeSize: fit.size,
                creativeOriginX: fit.originX,
                creativeOriginY: (height - fit.size.height) / 2
            )
        case .anchoredCreativeSize:
            guard creativePoints.width.isFinite, creativePoints.height.isFinite,
                  creativePoints.width > 0, creativePoints.height > 0
            else { return nil }
            let size: AdSize
            if creativePoints.width <= width {
                size = creativePoints
            } else {
                size = AdSize(width: width, height: creativePoints.height * width / creativePoints.width)
            }
            return Frame(size: size, creativeSize: size, creativeOriginX: (width - size.width) / 2, creativeOriginY: 0)
        case .inline(let maxHeight):
            guard let fit = QartveloInlineSizing.fit(creativePoints, width: width, maxHeight: maxHeight) else { return nil }
            return Frame(size: fit.size, creativeSize: fit.size, creativeOriginX: fit.originX, creativeOriginY: 0)
        }
    }
}
