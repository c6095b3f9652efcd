import Mediation

/// A Nitx slot format, with the wire spelling (Nitx seed, "Formats").
public enum NitxFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// A 320 x 50 pt banner.
    case banner320x50 = "banner_320x50"
    /// A 300 x 250 pt banner (medium rectangle).
    case banner300x250 = "banner_300x250"
    /// A full-width banner 50 to 90 pt high.
    case bannerAdaptive = "banner_adaptive"
    /// A full-screen interstitial.
    case interstitial
    /// A full-screen app open ad.
    case appOpen = "app_open"
    /// Native assets the host lays out.
    case native
    /// Rewarded: a stub in v1 that always fails.
    case rewarded

    /// The engine format this Nitx format serves.
    package var engineFormat: AdFormat {
        switch self {
        case .banner320x50, .banner300x250, .bannerAdaptive: .banner
        case .interstitial: .interstitial
        case .appOpen: .appOpen
        case .native: .native
        case .rewarded: .rewarded
        }
    }
}

/// The Nitx format and ad size chosen for one engine request.
package struct NitxFormatChoice: Sendable, Hashable {
    /// The smallest adaptive banner height, 50 pt (Nitx seed).
    package static let adaptiveMinimumHeight = 50.0
    /// The tallest adaptive banner height, 90 pt (Nitx seed).
    package static let adaptiveMaximumHeight = 90.0

    /// The Nitx format.
    package var format: NitxFormat
    /// The ad's size in points.
    package var size: AdSize

    /// Creates a choice.
    package init(format: NitxFormat, size: AdSize) {
        self.format = format
        self.size = size
    }

    /// Picks the Nitx format for `request`:
    /// - banner, anchored: adaptive at the slot's full width (the screen's when unbounded), with
    ///   a height of `width * 50 / 320` rounded, kept within 50...90 pt and the slot's height;
    /// - banner, inline or unspecified: 300x250 when it fits the slot, else 320x50, else adaptive;
    /// - interstitial and app open: the screen's size; native: the slot's bounds (the screen's
    ///   where unbounded); rewarded: ``NitxFormat/rewarded`` (which the client fails).
    /// - Returns: the choice, or a ``NitxErrorCode/noBannerSizeFits`` failure when no banner
    ///   fits (a slot narrower than 1 pt or lower than 50 pt).
    package static func resolve(for request: AdRequest) -> Result<NitxFormatChoice, AdLoadResult.Error> {
        let screen = AdSize(width: request.screen.width, height: request.screen.height)
        switch request.format {
        case .interstitial:
            return .success(NitxFormatChoice(format: .interstitial, size: screen))
        case .appOpen:
            return .success(NitxFormatChoice(format: .appOpen, size: screen))
        case .rewarded:
            return .success(NitxFormatChoice(format: .rewarded, size: screen))
        case .native:
            let size = AdSize(width: request.slot.maxWidth ?? screen.width, height: request.slot.maxHeight ?? screen.height)
            return .success(NitxFormatChoice(format: .native, size: size))
        case .banner:
            if request.bannerSizing != .anchored {
                for (format, size) in [(NitxFormat.banner300x250, AdSize(width: 300, height: 250)), (.banner320x50, AdSize(width: 320, height: 50))]
                where request.slot.fits(size) {
                    return .success(NitxFormatChoice(format: format, size: size))
                }
            }
            guard let size = adaptiveSize(slot: request.slot, screenWidth: request.screen.width) else {
                return .failure(NitxErrorCode.noBannerSizeFits.error("no Nitx banner size fits a slot of \(request.slot.maxWidth.map(DisplayText.number) ?? "any") x \(request.slot.maxHeight.map(DisplayText.number) ?? "any") pt"))
            }
            return .success(NitxFormatChoice(format: .bannerAdaptive, size: size))
        }
    }

    /// The adaptive banner size for a slot: full width, `width * 50 / 320` pt high rounded,
    /// clamped to 50...90 pt and to the slot's height; `nil` when the slot is lower than 50 pt.
    /// - Parameters:
    ///   - slot: the slot bounds in points.
    ///   - screenWidth: the screen width in points, used when the slot's width is unbounded.
    package static func adaptiveSize(slot: SlotSize, screenWidth: Double) -> AdSize? {
        let width = slot.maxWidth ?? screenWidth
        guard width.isFinite, width >= 1 else { return nil }
        var height = min(adaptiveMaximumHeight, max(adaptiveMinimumHeight, (width * 50 / 320).rounded()))
        if let maxHeight = slot.maxHeight {
            guard maxHeight >= adaptiveMinimumHeight else { return nil }
            height = min(height, maxHeight.rounded(.down))
        }
        return AdSize(width: width, height: height)
    }
}
