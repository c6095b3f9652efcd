import Mediation

/// What a preloaded ad is filed under (Elo seed, `preloadAd`): the forwarded messages' roles and
/// contents, the context objects, the max height and width in whole points and the consent
/// snapshot, plus the ad unit and the engine format. Message ids and times are not part of it.
struct EloPreloadKey: Hashable, Sendable {
    /// A message as the key sees it.
    struct Message: Hashable, Sendable {
        var role: AdRequest.Context.Message.Role
        var content: String
    }

    /// The consent in force when the ad was requested.
    struct ConsentSnapshot: Hashable, Sendable {
        var privacy: AdRequest.Privacy
        var coppa: Bool
        var tfua: Bool
    }

    var adUnitID: String
    var format: AdFormat
    var messages: [Message]
    var contextObjects: [AdRequest.Context.Object]
    var maxHeight: Int?
    var maxWidth: Int?
    var consent: ConsentSnapshot

    /// The key of a request.
    init(request: AdRequest, adUnitID: String, configuration: EloConfiguration, maxHeight: Int?, maxWidth: Int?) {
        self.adUnitID = adUnitID
        self.format = request.format
        self.messages = EloMessageRules.latest(request.context.messages).map { Message(role: $0.role, content: $0.content) }
        self.contextObjects = request.context.contextObjects
        self.maxHeight = maxHeight
        self.maxWidth = maxWidth
        self.consent = ConsentSnapshot(privacy: request.privacy, coppa: configuration.coppa, tfua: configuration.tfua)
    }
}

/// The in-memory preload cache: at most ``capacity`` ads, one per key, each served once and
/// only strictly before its expiry (its TTL, else the format's default). Ads dropped from the
/// cache (expired, replaced, evicted, cleared) are released.
struct EloPreloadCache {
    /// One cached fill.
    struct Entry {
        var ad: EloAd
        var eCPM: Double
        var expiresAt: MediationInstant
        var storedAt: MediationInstant
    }

    /// The most ads kept.
    let capacity: Int
    private var entries: [EloPreloadKey: Entry] = [:]

    init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
    }

    /// The number of ads held.
    var count: Int { entries.count }

    /// The ads held (for inspection).
    var ads: [EloAd] { entries.values.map(\.ad) }

    /// Files `ad` under `key`, releasing an ad it replaces and the oldest ad beyond capacity.
    mutating func store(_ ad: EloAd, eCPM: Double, under key: EloPreloadKey, now: MediationInstant) {
        let ttl = ad.timeToLive ?? ad.format.defaultTimeToLive
        if let replaced = entries.updateValue(Entry(ad: ad, eCPM: eCPM, expiresAt: now + ttl, storedAt: now), forKey: key) {
            replaced.ad.releaseResources()
        }
        while entries.count > capacity, let oldest = entries.min(by: { $0.value.storedAt < $1.value.storedAt }) {
            entries.removeValue(forKey: oldest.key)
            oldest.value.ad.releaseResources()
        }
    }

    /// Takes the ad filed under `key` when it has not expired; an expired one is released.
    mutating func take(_ key: EloPreloadKey, now: MediationInstant) -> Entry? {
        guard let entry = entries.removeValue(forKey: key) else { return nil }
        guard now < entry.expiresAt else {
            entry.ad.releaseResources()
            return nil
        }
        return entry
    }

    /// Releases and drops every ad.
    mutating func removeAll() {
        for entry in entries.values { entry.ad.releaseResources() }
        entries.removeAll()
    }
}
