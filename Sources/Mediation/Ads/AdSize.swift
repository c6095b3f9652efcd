/// A size in points (device-independent pixels; multiply by ``ScreenInfo/scale`` for pixels).
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
        "\(AdSize.format(width))x\(AdSize.format(height))"
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
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
}

/// The device's screen.
public struct ScreenInfo: Hashable, Sendable, Codable {
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
    public static let phone = ScreenInfo(width: 390, height: 844, scale: 3)
}
