extension AuctionTrace {
    /// What a trace says about its placement's configuration: format, banner sizing, slot, floor,
    /// mode and refresh. JSON: `{"format", "sizing", "slot": {"max_width", "max_height"}, "floor",
    /// "mode", "refresh_seconds", "deadline_ms"}` (absent values omitted).
    package struct PlacementSummary: Hashable, Sendable, Codable {
        /// The ad format.
        public package(set) var format: AdFormat
        /// `anchored` or `inline` for banners; `nil` otherwise.
        public package(set) var sizing: MediationConfiguration.Placement.BannerSizing?
        /// The declared slot's bounds, in points.
        public package(set) var slot: SlotSize
        /// The placement's floor in USD CPM, if any.
        public package(set) var floor: Double?
        /// Parallel or waterfall.
        public package(set) var mode: MediationConfiguration.Placement.AuctionMode
        /// The refresh interval in seconds (banners), if any.
        public package(set) var refreshSeconds: Int?
        /// The configured deadline, a length in milliseconds.
        public package(set) var deadlineMilliseconds: Double

        private enum CodingKeys: String, CodingKey {
            case format, sizing, slot, floor, mode
            case refreshSeconds = "refresh_seconds"
            case deadlineMilliseconds = "deadline_ms"
        }

        private enum SlotKeys: String, CodingKey {
            case maxWidth = "max_width"
            case maxHeight = "max_height"
        }

        /// Encodes with snake_case keys, the slot as `{"max_width", "max_height"}` in points.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(format, forKey: .format)
            try container.encodeIfPresent(sizing, forKey: .sizing)
            var slotContainer = container.nestedContainer(keyedBy: SlotKeys.self, forKey: .slot)
            try slotContainer.encodeIfPresent(slot.maxWidth, forKey: .maxWidth)
            try slotContainer.encodeIfPresent(slot.maxHeight, forKey: .maxHeight)
            try container.encodeIfPresent(floor, forKey: .floor)
            try container.encode(mode, forKey: .mode)
            try container.encodeIfPresent(refreshSeconds, forKey: .refreshSeconds)
            try container.encode(deadlineMilliseconds, forKey: .deadlineMilliseconds)
        }

        /// Decodes the form ``encode(to:)`` writes.
        /// - Throws: `DecodingError` for a missing or mistyped field.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            format = try container.decode(AdFormat.self, forKey: .format)
            sizing = try container.decodeIfPresent(MediationConfiguration.Placement.BannerSizing.self, forKey: .sizing)
            let slotContainer = try container.nestedContainer(keyedBy: SlotKeys.self, forKey: .slot)
            slot = SlotSize(maxWidth: try slotContainer.decodeIfPresent(Double.self, forKey: .maxWidth), maxHeight: try slotContainer.decodeIfPresent(Double.self, forKey: .maxHeight))
            floor = try container.decodeIfPresent(Double.self, forKey: .floor)
            mode = try container.decode(MediationConfiguration.Placement.AuctionMode.self, forKey: .mode)
            refreshSeconds = try container.decodeIfPresent(Int.self, forKey: .refreshSeconds)
            deadlineMilliseconds = try container.decode(Double.self, forKey: .deadlineMilliseconds)
        }

        /// The summary of `placement`.
        public init(_ placement: MediationConfiguration.Placement) {
            format = placement.format
            sizing = placement.bannerSizing
            slot = placement.slot
            floor = placement.floor
            mode = placement.mode
            refreshSeconds = placement.refreshSeconds
            deadlineMilliseconds = min(placement.deadline, MediationConfiguration.Placement.defaultDeadline).milliseconds
        }
    }
}
