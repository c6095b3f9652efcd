extension MediationConfiguration {
    /// One experiment of the configuration's top-level `experiments` array: a change to some
    /// placements tried on part of the installs, between two wall-clock instants.
    ///
    /// JSON:
    /// ```json
    /// { "id": "waterfall_b", "salt": "s1",
    ///   "start": "2026-12-01T00:00:00Z", "end": "2026-12-31T00:00:00Z",
    ///   "allocation_bp": 10000,
    ///   "variants": [ { "id": "A", "weight_bp": 5000 },
    ///                 { "id": "B", "weight_bp": 5000, "placements": { "level_end": { "floor": 0.5 } } } ] }
    /// ```
    /// The first variant is the control. An install takes part when its bucket
    /// (``ExperimentAssignment``) is under ``allocationBasisPoints``; its variant is drawn from a
    /// second hash over the variants' weights. An install outside the allocation is in no
    /// variant (never counted as control) and runs the placements as configured.
    package struct Experiment: Hashable, Sendable {
        /// The experiment's id, unique in the configuration, e.g. `"waterfall_b"`.
        public var id: String
        /// The salt of its hashes: a new salt draws new buckets (1 to 100 characters).
        public var salt: String
        /// When it starts, on the wall clock (inclusive).
        public var start: WallClockTime
        /// When it ends, on the wall clock (exclusive); after ``start``.
        public var end: WallClockTime
        /// The share of installs that take part, in basis points (0 to 10,000).
        public var allocationBasisPoints: Int
        /// Its variants, control first; their weights sum to 10,000 basis points.
        public var variants: [Variant]

        /// One variant: an id, its share of the installs taking part, and what it changes in
        /// each placement it names.
        public struct Variant: Hashable, Sendable {
            /// The variant's id, unique in its experiment, e.g. `"B"`.
            public var id: String
            /// Its share of the installs taking part, in basis points (1 to 10,000).
            public var weightBasisPoints: Int
            /// Per placement id, the override applied to the placement (after its segment's).
            public var placements: [String: PlacementOverride]

            /// Creates a variant.
            /// - Parameters:
            ///   - id: the variant's id.
            ///   - weightBasisPoints: its share of the installs taking part, in basis points.
            ///   - placements: per placement id, what it changes.
            public init(id: String, weightBasisPoints: Int, placements: [String: PlacementOverride] = [:]) {
                self.id = id
                self.weightBasisPoints = weightBasisPoints
                self.placements = placements
            }
        }

        /// Creates an experiment (the loader checks the rules; this initializer does not).
        /// - Parameters:
        ///   - id: the experiment's id.
        ///   - salt: the salt of its hashes.
        ///   - start: when it starts (inclusive).
        ///   - end: when it ends (exclusive).
        ///   - allocationBasisPoints: the share of installs taking part, basis points.
        ///   - variants: the variants, control first.
        public init(id: String, salt: String, start: WallClockTime, end: WallClockTime, allocationBasisPoints: Int, variants: [Variant]) {
            self.id = id
            self.salt = salt
            self.start = start
            self.end = end
            self.allocationBasisPoints = allocationBasisPoints
            self.variants = variants
        }

        /// The placements under the experiment: every placement a variant names, in id order.
        public var placementIDs: [String] {
            Set(variants.flatMap(\.placements.keys)).sorted()
        }

        /// Whether it runs at `time`: from ``start`` (inclusive) to ``end`` (exclusive).
        /// - Parameter time: a wall-clock instant.
        public func isActive(at time: WallClockTime) -> Bool {
            start.millisecondsSince1970 <= time.millisecondsSince1970 && time.millisecondsSince1970 < end.millisecondsSince1970
        }

        /// The variant of `installID`, or `nil` when the install is outside the allocation
        /// (``ExperimentAssignment``).
        /// - Parameter installID: the engine's install id.
        public func variant(of installID: String) -> Variant? {
            guard let index = ExperimentAssignment.variantIndex(salt: salt, installID: installID, allocationBasisPoints: allocationBasisPoints, weights: variants.map(\.weightBasisPoints)) else { return nil }
            return variants[index]
        }
    }
}
