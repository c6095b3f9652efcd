/// One request for one ad, as the auction hands it to an ad source's adapter.
///
/// The engine builds one per source: the shared fields come from the placement and the host,
/// ``adUnitID`` and ``deadline`` from the source's line item.
public struct AdRequest: Hashable, Sendable {
    /// The placement id, e.g. `"home_banner"`.
    public var placementID: String
    /// The network's own id for this line item's ad unit (from the config's `ad_unit_id`).
    public var adUnitID: String
    /// The ad format the placement shows.
    public var format: AdFormat
    /// For banners, how the slot is sized; `nil` for other formats.
    public var bannerSizing: MediationConfiguration.Placement.BannerSizing?
    /// The slot's bounds in points.
    public var slot: SlotSize
    /// The device's screen.
    public var screen: Device.Screen {
        get { signals.screen }
        set { signals.screen = newValue }
    }
    /// The conversation and screen context.
    public var context: Context
    /// Device signals.
    public var device: Device {
        get { signals.device }
        set { signals.device = newValue }
    }
    /// The host app.
    public var app: RequestTemplate.App {
        get { signals.app }
        set { signals.app = newValue }
    }
    /// Privacy signals.
    public var privacy: Privacy {
        get { signals.privacy }
        set { signals.privacy = newValue }
    }
    /// The host's screen, device, app and privacy signals, shared with the template the request
    /// was made from (one reference, so the engine's copy per source costs no string copies).
    package var signals: RequestTemplate
    /// The instant by which the answer must arrive (the earlier of the auction's deadline and
    /// the source's own timeout), on the engine's clock. Adapters may use it as `tmax`.
    public var deadline: MediationInstant
    /// The time left until ``deadline`` when the request was made.
    public var timeBudget: Duration

    /// Creates a request.
    public init(
        placementID: String,
        adUnitID: String = "",
        format: AdFormat,
        bannerSizing: MediationConfiguration.Placement.BannerSizing? = nil,
        slot: SlotSize = SlotSize(),
        screen: Device.Screen = .phone,
        context: Context = Context(),
        device: Device = Device(),
        app: RequestTemplate.App = RequestTemplate.App(),
        privacy: Privacy = Privacy(),
        deadline: MediationInstant = .origin + .seconds(3),
        timeBudget: Duration = .seconds(3)
    ) {
        self.placementID = placementID
        self.adUnitID = adUnitID
        self.format = format
        self.bannerSizing = bannerSizing
        self.slot = slot
        self.context = context
        signals = RequestTemplate(screen: screen, device: device, app: app, privacy: privacy)
        self.deadline = deadline
        self.timeBudget = timeBudget
    }

    /// Creates a request that shares `signals` (the engine's form: no copy of the signals).
    package init(
        placementID: String,
        adUnitID: String = "",
        format: AdFormat,
        bannerSizing: MediationConfiguration.Placement.BannerSizing?,
        slot: SlotSize,
        context: Context,
        signals: RequestTemplate,
        deadline: MediationInstant,
        timeBudget: Duration
    ) {
        self.placementID = placementID
        self.adUnitID = adUnitID
        self.format = format
        self.bannerSizing = bannerSizing
        self.slot = slot
        self.context = context
        self.signals = signals
        self.deadline = deadline
        self.timeBudget = timeBudget
    }
}
