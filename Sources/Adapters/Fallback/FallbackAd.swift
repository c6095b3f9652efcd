import Mediation

/// An ad of the fallback network. It holds nothing real; ``releaseResources()`` only marks it
/// released (idempotent, thread-safe) so tests can see that the engine released it.
public final class FallbackAd: LoadedAd {
    /// Unique per showing: `network:ad_unit:request_number`.
    public let id: String
    /// The creative id, e.g. `fallback-3f2a9c1d-2` (stable per ad unit and creative).
    public let creativeID: String
    /// The network id as the config names it.
    public let network: String
    /// The format it was loaded for.
    public let format: AdFormat
    /// Its size in points.
    public let size: AdSize

    private let releases = Locked(0)

    /// Creates an ad.
    /// - Parameters:
    ///   - id: unique per showing.
    ///   - creativeID: the creative's id.
    ///   - network: the network id.
    ///   - format: the format.
    ///   - size: the size in points.
    package init(id: String, creativeID: String, network: String, format: AdFormat, size: AdSize) {
        self.id = id
        self.creativeID = creativeID
        self.network = network
        self.format = format
        self.size = size
    }

    /// Marks the ad released; later calls do nothing.
    public func releaseResources() {
        releases.withLock { $0 += 1 }
    }

    /// Whether ``releaseResources()`` has been called.
    package var isReleased: Bool { releases.withLock { $0 > 0 } }
}
