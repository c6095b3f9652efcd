extension MediationEvent {
    /// Which experiment and variant an event belongs to, and the install's user unit in that
    /// experiment (``ExperimentAssignment/unit(salt:installID:)``: 16 hex digits, not linkable
    /// across experiments nor to the install id). Events of a placement carry it once the
    /// install was exposed there (an `exposure` event), and so does the auction's trace.
    ///
    /// JSON: three top-level fields of the event record (and of the trace),
    /// `"experiment": "waterfall_b", "variant": "B", "unit": "1e22ee43ad716636"`.
    public struct ExperimentArm: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The experiment's id.
        public var experimentID: String
        /// The variant's id.
        public var variantID: String
        /// The install's user unit in this experiment: 16 lowercase hex digits.
        public var unit: String

        /// Creates an arm.
        /// - Parameters:
        ///   - experimentID: the experiment's id.
        ///   - variantID: the variant's id.
        ///   - unit: the user unit, 16 lowercase hex digits.
        public init(experimentID: String, variantID: String, unit: String) {
            self.experimentID = experimentID
            self.variantID = variantID
            self.unit = unit
        }

        private enum CodingKeys: String, CodingKey {
            case experimentID = "experiment"
            case variantID = "variant"
            case unit
        }

        /// `experiment/variant`, e.g. `waterfall_b/B`, control characters escaped.
        public var description: String {
            "\(DisplayText.escaped(experimentID))/\(DisplayText.escaped(variantID))"
        }
    }

    /// An install's first auction of a placement under an experiment (not its assignment): from
    /// here on, the placement's events carry ``arm``.
    ///
    /// JSON: `{"event": "exposure", "at_ms": 1200, "placement": "level_end", "experiment":
    /// "waterfall_b", "variant": "B", "unit": "1e22ee43ad716636", "day": "2026-12-07",
    /// "config_version": 3}`.
    public struct Exposure: Hashable, Sendable {
        /// The placement id.
        public var placementID: String
        /// The experiment, variant and unit.
        public var arm: ExperimentArm
        /// The wall-clock day (UTC) of the exposure, `YYYY-MM-DD`.
        public var day: String
        /// The `config_version` the auction runs under.
        public var configVersion: Int
        /// When it happened, on the engine's clock.
        public var at: MediationInstant

        /// Creates an exposure.
        /// - Parameters:
        ///   - placementID: the placement id.
        ///   - arm: the experiment, variant and unit.
        ///   - day: the wall-clock day (UTC), `YYYY-MM-DD`.
        ///   - configVersion: the `config_version` the auction runs under.
        ///   - at: when it happened, on the engine's clock.
        public init(placementID: String, arm: ExperimentArm, day: String, configVersion: Int, at: MediationInstant) {
            self.placementID = placementID
            self.arm = arm
            self.day = day
            self.configVersion = configVersion
            self.at = at
        }
    }
}

extension WallClockTime {
    /// The day of this time in UTC, `YYYY-MM-DD` (the `day` field of `shown` and `exposure`
    /// events).
    package var utcDay: String { String(description.prefix(10)) }
}
