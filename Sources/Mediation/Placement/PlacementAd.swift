extension Placement {
    /// A placement's current ad as the host sees it: the ad to render, who won, and until when it
    /// may be shown.
    public struct Ad: Sendable {
        /// The ad. The host renders it and reports ``Placement/reportShown(_:)``; it must not call
        /// `releaseResources()` itself while the placement holds it.
        public var ad: any LoadedAd
        /// The winning line item.
        public var lineItem: LineItem
        /// Its value in USD CPM.
        public var eCPM: Double
        /// The auction it won.
        public var auctionID: String
        /// When it arrived and when it expires (R14).
        package var expiry: Expiry
        /// Whether it has counted its impression (R12).
        public var isShown: Bool

        /// Creates a placement ad.
        package init(ad: any LoadedAd, lineItem: LineItem, eCPM: Double, auctionID: String, expiry: Expiry, isShown: Bool = false) {
            self.ad = ad
            self.lineItem = lineItem
            self.eCPM = eCPM
            self.auctionID = auctionID
            self.expiry = expiry
            self.isShown = isShown
        }
    }
}

extension Placement {
    /// What ``Placement/load()`` returns: the same outcome for every caller that joined one
    /// auction (R11).
    public enum LoadResult: Sendable {
        /// The placement holds a fresh ad (just won, or already current and unexpired, R10).
        case loaded(Ad)
        /// The auction ended with no fill; the trace says why. A current ad, if any, is kept.
        case noFill(AuctionTrace)
        /// The placement was destroyed (before or during the auction).
        case destroyed

        /// The ad, when loaded.
        public var ad: Ad? {
            if case .loaded(let ad) = self { return ad }
            return nil
        }
    }
}

extension Placement {
    /// What ``Placement/reportShown(_:)`` decided.
    public enum ShowResult: Sendable, Hashable {
        /// The ad counted its impression now.
        case impression(MediationEvent.Impression)
        /// The ad had already counted its impression: no new one (R12).
        case alreadyShown
        /// The ad expired before it was shown: it was released and must not be shown (R14).
        case expired
        /// The ad is not this placement's current ad (replaced, released, or never its ad).
        case notCurrent
        /// The report was refused and nothing was counted (engine rule R12a): the reason says why.
        /// The ad stays current; a later report (or, for ``Placement/ShowResult/Refusal/notReady(_:)``, the ad
        /// becoming ready while its placement is seen) may count its impression.
        case refused(Refusal)
    }
}

extension Placement.ShowResult {
    /// Why a report that an ad was shown counted nothing (engine rule R12a).
    public enum Refusal: Hashable, Sendable {
        /// The app is in the background.
        case background
        /// No view of the placement is visible (banner and native placements; the host presents
        /// full-screen formats itself, so for them the foreground is enough).
        case noVisibleView
        /// The ad's network says its impression cannot count yet (``ImpressionReadiness/notReady(_:)``);
        /// it counts when the ad becomes ready while the placement is seen.
        case notReady(String)
        /// The ad's network does not allow it now (``ImpressionReadiness/notAllowed(_:)``).
        case notAllowed(String)
        /// A cap or pacing (of the app, the placement, its network or its line item) or the
        /// one-full-screen-ad rule refuses it now (`docs/caps.md`): the refusal names the rule
        /// and when it frees. The ad stays current; a later report may count.
        case capped(CapRefusal)
    }
}

extension Placement {
    /// A host view of a placement (e.g. one banner view in one feed row), from
    /// ``Placement/attachView(visible:)``.
    public struct ViewID: Hashable, Sendable, CustomStringConvertible {
        /// A number unique within its placement.
        public var rawValue: Int

        /// Creates an id.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// `view#N`.
        public var description: String { "view#\(rawValue)" }
    }
}
