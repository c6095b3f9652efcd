import Foundation
import Mediation

/// One creative an advertiser uploaded, with its artwork size in pixels.
package struct QartveloCreativeArtwork: Hashable, Sendable {
    /// The artwork's width in pixels.
    public var width: Int
    /// The artwork's height in pixels.
    public var height: Int
    /// Artwork pixels per point of its design size: 3 for Retina adaptive artwork (960x150 is
    /// designed for 320x50 pt, 1320x204 for 440x68 pt, 2184x270 for 728x90 pt), 1 for the
    /// standard sizes (already in points).
    public var density: Double

    /// Creates an artwork description.
    public init(width: Int, height: Int, density: Double) {
        self.width = width
        self.height = height
        self.density = density
    }

    /// `WIDTHxHEIGHT` in pixels, e.g. `960x150`.
    package var name: String { "\(width)x\(height)" }

    /// Width over height.
    package var aspectRatio: Double { Double(width) / Double(height) }

    /// The natural size in points: pixels / density.
    package var points: AdSize { AdSize(width: Double(width) / density, height: Double(height) / density) }

    /// Whether it is an inline rectangle (narrower than twice its height, such as 300x250),
    /// which adaptive and widest-fit requests never get. Our threshold; the seed names 300x250.
    package var isInlineRectangle: Bool { width < 2 * height }

    /// Every size advertisers may upload (Qartvelo seed, "Banner"): Retina adaptive artwork
    /// 960x150, 1320x204, 2184x270, and standard 320x50, 320x100, 300x250, 468x60, 728x90.
    public static let uploadSizes: [QartveloCreativeArtwork] = [
        QartveloCreativeArtwork(width: 960, height: 150, density: 3),
        QartveloCreativeArtwork(width: 1320, height: 204, density: 3),
        QartveloCreativeArtwork(width: 2184, height: 270, density: 3),
        QartveloCreativeArtwork(width: 320, height: 50, density: 1),
        QartveloCreativeArtwork(width: 320, height: 100, density: 1),
        QartveloCreativeArtwork(width: 300, height: 250, density: 1),
        QartveloCreativeArtwork(width: 468, height: 60, density: 1),
        QartveloCreativeArtwork(width: 728, height: 90, density: 1),
    ]
}

/// The Qartvelo server's creative choice (Qartvelo seed, "Banner", "Inline banners"), as the
/// sandbox runs it. Every rule breaks ties by the sharper artwork (more pixels), then by the
/// candidates' order.
package enum QartveloCreativeSelection {
    /// Adaptive requests: the horizontal creative (inline rectangles excluded) whose aspect
    /// ratio is closest to the slot's, measured as `|ln(creative ratio / slot ratio)|`.
    /// - Parameters:
    ///   - slotWidth: the slot's width (pixels or points, the same unit as `slotHeight`).
    ///   - slotHeight: the slot's height.
    ///   - candidates: the approved creatives.
    /// - Returns: the choice, or `nil` when no candidate qualifies.
    package static func adaptive(slotWidth: Double, slotHeight: Double, from candidates: [QartveloCreativeArtwork]) -> QartveloCreativeArtwork? {
        guard slotWidth > 0, slotHeight > 0, slotWidth.isFinite, slotHeight.isFinite else { return nil }
        let slotRatio = slotWidth / slotHeight
        return best(candidates.filter { !$0.isInlineRectangle }) { abs(log($0.aspectRatio / slotRatio)) }
    }

    /// Inline requests: the candidate that shows biggest (largest area) once aspect-fit into
    /// `width` x `maxHeight`; every candidate takes part, rectangles included.
    /// - Parameters:
    ///   - width: the slot's width (pixels or points, the same unit as `maxHeight`).
    ///   - maxHeight: the slot's maximum height.
    ///   - candidates: the approved creatives.
    /// - Returns: the choice, or `nil` when no candidate qualifies.
    package static func inline(width: Double, maxHeight: Double, from candidates: [QartveloCreativeArtwork]) -> QartveloCreativeArtwork? {
        best(candidates) { artwork in
            guard let fit = QartveloInlineSizing.fit(AdSize(width: Double(artwork.width), height: Double(artwork.height)), width: width, maxHeight: maxHeight) else {
                return .infinity
            }
            return -(fit.size.width * fit.size.height)
        }
    }

    /// Requests without `banner_height` (adaptive sizing off): the widest horizontal creative
    /// whose natural width in points fits the slot's width (half a point of tolerance).
    /// - Parameters:
    ///   - width: the slot's width in points.
    ///   - candidates: the approved creatives.
    /// - Returns: the choice, or `nil` when none fits.
    package static func widestFit(width: Double, from candidates: [QartveloCreativeArtwork]) -> QartveloCreativeArtwork? {
        best(candidates.filter { !$0.isInlineRectangle && $0.points.width <= width + 0.5 }) { -$0.points.width }
    }

    /// The candidate with the lowest cost; equal costs (within 1e-9) go to more pixels, then
    /// to the earlier candidate.
    private static func best(_ candidates: [QartveloCreativeArtwork], cost: (QartveloCreativeArtwork) -> Double) -> QartveloCreativeArtwork? {
        var chosen: (artwork: QartveloCreativeArtwork, cost: Double)?
        for candidate in candidates {
            let value = cost(candidate)
            guard value.isFinite else { continue }
            guard let current = chosen else {
                chosen = (candidate, value)
                continue
            }
            if value < current.cost - 1e-9
                || (abs(value - current.cost) <= 1e-9 && candidate.width * candidate.height > current.artwork.width * current.artwork.height) {
                chosen = (candidate, value)
            }
        }
        return chosen?.artwork
    }
}
