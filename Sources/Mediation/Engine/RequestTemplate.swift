/// The host's side of every ad request: the screen, device, app and privacy signals the engine
/// copies into each placement's requests. The placement fills in its id, format, sizing and
/// slot; the auction fills in each source's ad unit and deadline.
public struct RequestTemplate: Hashable, Sendable {
    /// The device's screen.
    public var screen: ScreenInfo
    /// Device signals.
    public var device: DeviceInfo
    /// The host app.
    public var app: AppInfo
    /// Privacy signals.
    public var privacy: PrivacySignals

    /// Creates a template.
    public init(screen: ScreenInfo = .phone, device: DeviceInfo = DeviceInfo(), app: AppInfo = AppInfo(), privacy: PrivacySignals = PrivacySignals()) {
        self.screen = screen
        self.device = device
        self.app = app
        self.privacy = privacy
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
            screen: screen,
            context: context,
            device: device,
            app: app,
            privacy: privacy,
            deadline: start + placement.deadline,
            timeBudget: placement.deadline
        )
    }
}
