/// The host's side of every ad request: the screen, device, app and privacy signals the engine
/// copies into each placement's requests. The placement fills in its id, format, sizing and
/// slot; the auction fills in each source's ad unit and deadline.
///
/// A template is a small value: its signals sit in one immutable shared box, so copying it (and
/// every ``AdRequest`` made from it, which shares the box) costs one reference count, not a copy
/// of every string of the device and privacy signals. Setting a property replaces the box.
public struct RequestTemplate: Hashable, Sendable {
    /// The signals, in one shared box, with the audience they resolve to (computed on each
    /// change, so an auction reads it for free).
    private struct Signals: Hashable, Sendable {
        var screen: AdRequest.Device.Screen
        var device: AdRequest.Device
        var app: RequestTemplate.App
        var privacy: AdRequest.Privacy
        var audience: [String: AudienceValue]
        var resolved: Audience
        var dropped: [String]

        init(screen: AdRequest.Device.Screen, device: AdRequest.Device, app: RequestTemplate.App, privacy: AdRequest.Privacy, audience: [String: AudienceValue]) {
            self.screen = screen
            self.device = device
            self.app = app
            self.privacy = privacy
            self.audience = audience
            (resolved, dropped) = Audience.resolve(device: device, app: app, privacy: privacy, custom: audience)
        }

        /// A copy with `change` applied and the audience resolved again.
        func changed(_ change: (inout Signals) -> Void) -> Signals {
            var copy = self
            change(&copy)
            return Signals(screen: copy.screen, device: copy.device, app: copy.app, privacy: copy.privacy, audience: copy.audience)
        }
    }

    private var signals: SharedValue<Signals>

    /// The device's screen.
    public var screen: AdRequest.Device.Screen {
        get { signals.value.screen }
        set { signals = SharedValue(signals.value.changed { $0.screen = newValue }) }
    }
    /// Device signals.
    public var device: AdRequest.Device {
        get { signals.value.device }
        set { signals = SharedValue(signals.value.changed { $0.device = newValue }) }
    }
    /// The host app.
    public var app: RequestTemplate.App {
        get { signals.value.app }
        set { signals = SharedValue(signals.value.changed { $0.app = newValue }) }
    }
    /// Privacy signals.
    public var privacy: AdRequest.Privacy {
        get { signals.value.privacy }
        set { signals = SharedValue(signals.value.changed { $0.privacy = newValue }) }
    }

    /// The host's custom audience key-values, which a segment's `custom.<key>` predicate tests
    /// (never sent to a network). Bounds: at most 20 keys, each `[a-z][a-z0-9_]{0,39}`, a string
    /// at most 128 UTF-8 bytes, a number finite; a key out of bounds is dropped with a warning in
    /// the engine's log.
    public var audience: [String: AudienceValue] {
        get { signals.value.audience }
        set { signals = SharedValue(signals.value.changed { $0.audience = newValue }) }
    }

    /// The audience the signals resolve to (country, device kind, versions, custom keys,
    /// privacy flags), computed when a signal changes.
    package var resolvedAudience: Audience { signals.value.resolved }

    /// Why each custom key out of bounds was dropped, one line each (the engine logs them).
    package var droppedAudienceKeys: [String] { signals.value.dropped }

    /// Creates a template.
    /// - Parameter audience: custom audience key-values (see ``audience`` for the bounds).
    public init(screen: AdRequest.Device.Screen = .phone, device: AdRequest.Device = AdRequest.Device(), app: RequestTemplate.App = RequestTemplate.App(), privacy: AdRequest.Privacy = AdRequest.Privacy(), audience: [String: AudienceValue] = [:]) {
        signals = SharedValue(Signals(screen: screen, device: device, app: app, privacy: privacy, audience: audience))
    }

    /// Templates are equal when their signals are (a shared box is equal at once).
    public static func == (lhs: RequestTemplate, rhs: RequestTemplate) -> Bool {
        lhs.signals === rhs.signals || lhs.signals.value == rhs.signals.value
    }

    /// Hashes every signal.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(signals.value)
    }

    /// The request of one auction of `placement`.
    /// - Parameters:
    ///   - placement: the placement's configuration (id, format, banner sizing).
    ///   - slot: the slot's current bounds in points.
    ///   - context: the conversation and screen context.
    ///   - start: the auction's start instant; the deadline is `start` + the placement's deadline.
    /// - Returns: the request, with an empty ad unit id (the auction sets each source's).
    public func request(for placement: MediationConfiguration.Placement, slot: SlotSize, context: AdRequest.Context, at start: MediationInstant) -> AdRequest {
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
