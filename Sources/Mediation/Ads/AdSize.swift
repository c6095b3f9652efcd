/// A size in points (device-independent pixels; multiply by ``AdRequest/Device/Screen/scale`` for
/// pixels).
public struct AdSize: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Width in points.
    public var width: Double
    /// Height in points.
    public var height: Double

    /// Creates a size.
    /// - Parameters:
    ///   - width: width in points.
    ///   - height: height in points.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The size as `WIDTHxHEIGHT`, e.g. `320x50`.
    public var description: String {
        "\(DisplayText.number(width))x\(DisplayText.number(height))"
    }
}

/// The space a placement offers an ad, in points. A `nil` bound means "not limited".
public struct SlotSize: Hashable, Sendable, Codable {
    /// The widest ad the slot takes, in points.
    public var maxWidth: Double?
    /// The tallest ad the slot takes, in points.
    public var maxHeight: Double?

    /// Creates a slot bound.
    /// - Parameters:
    ///   - maxWidth: the widest ad in points, or `nil` for no limit.
    ///   - maxHeight: the tallest ad in points, or `nil` for no limit.
    public init(maxWidth: Double? = nil, maxHeight: Double? = nil) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
    }

    /// Whether an ad of `size` fits: no wider than ``maxWidth`` and no taller than
    /// ``maxHeight``, with half a point of tolerance for rounding (engine rule R8).
    /// - Parameter size: the ad's size in points.
    public func fits(_ size: AdSize) -> Bool {
        let tolerance = 0.5
        guard size.width.isFinite, size.height.isFinite, size.width > 0, size.height > 0 else { return false }
        if let maxWidth, size.width > maxWidth + tolerance { return false }
        if let maxHeight, size.height > maxHeight + tolerance { return false }
        return true
    }

    /// This slot kept within `bounds` (engine rule R8a): each side is the smaller of the two;
    /// a side `bounds` leaves unlimited keeps this slot's value, and a side this slot leaves
    /// unlimited takes `bounds`'. A host's resize can thus shrink a placement's declared slot
    /// but never grow it. A bound that is not a positive finite number is ignored.
    /// - Parameter bounds: the outer bounds (a placement's declared slot).
    /// - Returns: the clamped slot.
    public func clamped(to bounds: SlotSize) -> SlotSize {
        SlotSize(
            maxWidth: SlotSize.smaller(SlotSize.usable(maxWidth), SlotSize.usable(bounds.maxWidth)),
            maxHeight: SlotSize.smaller(SlotSize.usable(maxHeight), SlotSize.usable(bounds.maxHeight))
        )
    }

    /// This slot with an unlimited width bounded by `screenWidth` (engine rule R8a: an ad is
    /// never wider than the screen). A screen width that is not a positive finite number
    /// leaves the slot as it is.
    /// - Parameter screenWidth: the screen's width in points.
    /// - Returns: the bounded slot.
    public func boundingWidth(by screenWidth: Double) -> SlotSize {
        guard maxWidth == nil, screenWidth.isFinite, screenWidth > 0 else { return self }
        return SlotSize(maxWidth: screenWidth, maxHeight: maxHeight)
    }

    private static func usable(_ bound: Double?) -> Double? {
        guard let bound, bound.isFinite, bound > 0 else { return nil }
        return bound
    }

    private static func smaller(_ lhs: Double?, _ rhs: Double?) -> Double? {
        switch (lhs, rhs) {
        case (let lhs?, let rhs?): min(lhs, rhs)
        case (let lhs?, nil): lhs
        case (nil, let rhs?): rhs
        case (nil, nil): nil
        }
    }
}

extension AdRequest.Device {
    /// The device's screen.
    public struct Screen: Hashable, Sendable, Codable {
        /// Screen width in points.
        public var width: Double
        /// Screen height in points.
        public var height: Double
        /// Pixels per point (2 or 3 on current phones).
        public var scale: Double

        /// Creates a screen description.
        /// - Parameters:
        ///   - width: width in points.
        ///   - height: height in points.
        ///   - scale: pixels per point.
        public init(width: Double, height: Double, scale: Double) {
            self.width = width
            self.height = height
            self.scale = scale
        }

        /// A 390 x 844 pt screen at scale 3 (a 6.1-inch phone), the CLI's default.
        public static let phone = Screen(width: 390, height: 844, scale: 3)
    }
}
