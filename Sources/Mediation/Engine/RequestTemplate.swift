/// The host's side of every ad request: the screen, device, app and privacy signals the engine
/// copies into each placement's requests. The placement fills in its id, format, sizing and
/// slot; the auction fills in each source's ad unit and deadline.
///
/// A template is a small value: its signals sit in one immutable shared box, so copying it (and
/// every ``AdRequest`` made from it, which shares the box) costs one reference count, not a copy
/// of every string of the device and privacy signals. Setting a property replaces the box.
public struct RequestTemplate: Hashable, Sendable {
    /// The shared signals.
    private final class Signals: Sendable {
        let screen: ScreenInfo
        let device: DeviceInfo
        let app: AppInfo
        let privacy: PrivacySignals

        init(screen: ScreenInfo, device: DeviceInfo, app: AppInfo, privacy: PrivacySignals) {
            self.screen = screen
            self.device = device
            self.app = app
            self.privacy = privacy
        }
    }

    private var signals: Signals

    /// The device's screen.
    public var screen: ScreenInfo {
        get { signals.screen }
        set { signals = Signals(screen: newValue, device: device, app: app, privacy: privacy) }
    }
    /// Device signals.
    public var device: DeviceInfo {
        get { signals.device }
        set { signals = Signals(screen: screen, device: newValue, app: app, privacy: privacy) }
    }
    /// The host app.
    public var app: AppInfo {
        get { signals.app }
        set { signals = Signals(screen: screen, device: device, app: newValue, privacy: privacy) }
    }
    /// Privacy signals.
    public var privacy: PrivacySignals {
        get { signals.privacy }
        set { signals = Signals(screen: screen, device: device, app: app, privacy: newValue) }
    }

    /// Creates a template.
    public init(screen: ScreenInfo = .phone, device: DeviceInfo = DeviceInfo(), app: AppInfo = AppInfo(), privacy: PrivacySignals = PrivacySignals()) {
        signals = Signals(screen: screen, device: device, app: app, privacy: privacy)
    }

    /// Templates are equal when their signals are (a shared box is equal at once).
    public static func == (lhs: RequestTemplate, rhs: RequestTemplate) -> Bool {
        lhs.signals === rhs.signals
            || (lhs.screen == rhs.screen && lhs.device == rhs.device && lhs.app == rhs.app && lhs.privacy == rhs.privacy)
    }

    /// Hashes every signal.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(screen)
        hasher.combine(device)
        hasher.combine(app)
        hasher.combine(privacy)
    }

    /// The request of one auction of `placement`.
    /// - Parameters:
    ///   - placement: the placement's configuration (id, format, banner sizing).
    ///   - slot: the slot's current bounds in points.
    ///   - context: the conversation and screen context.
    ///   - start: the auction's start instant; the deadline is `start` + the placement's deadline.
    /// - Returns: the request, with an empty ad unit id (the auction sets each source's).
    public func request(for placement: PlacementConfiguration, slot: SlotSize, context: HostContext, at start: MediationInstant) -> AdRequest {
        AdRequest(
            placementID: placement.id,
            format: placement.format,
            bannerSizing: placement.bannerSizing,
            slot: slot,
            context: context,
            signals: self,
            deadline: start + placement.deadline,
            timeBudget: placement.deadline
        )
    }
}
