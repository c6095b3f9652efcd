/// Whose health one ``NetworkHealth`` machine keeps (engine rule R24): a network's, or one of
/// its line items' (a line item is named by its placement and its id, unique in that
/// placement, since the same id may appear in two placements).
struct HealthSubject: Hashable, Sendable {
    /// The network.
    var networkID: String
    /// The line item's placement; `nil` for the network itself.
    var placementID: String?
    /// The line item's id in ``placementID``; `nil` for the network itself.
    var lineItemID: String?

    /// Network `id` as a whole.
    static func network(_ id: String) -> HealthSubject {
        HealthSubject(networkID: id)
    }

    /// Line item `id` of placement `placementID`, served by network `networkID`.
    static func lineItem(_ id: String, placementID: String, networkID: String) -> HealthSubject {
        HealthSubject(networkID: networkID, placementID: placementID, lineItemID: id)
    }

    /// Whether it is a line item (rather than a whole network).
    var isLineItem: Bool { lineItemID != nil }

    /// Its key in the state store. A network's is `health.<network id>`. A line item's is
    /// `health_line_item.` and the SHA-256 (hex) of its three ids, each preceded by its length
    /// in bytes: any ids (from an untrusted configuration) give a valid key of 81 bytes, no two
    /// line items share one, and none is a network's (those begin `health.`).
    var storeKey: String {
        guard let placementID, let lineItemID else { return "health." + networkID }
        var bytes: [UInt8] = []
        for id in [networkID, placementID, lineItemID] {
            bytes += Array("\(id.utf8.count):".utf8) + Array(id.utf8)
        }
        return "health_line_item." + SHA256Digest.hex(SHA256Digest.hash(bytes))
    }

    /// What numbers its back-off's jitter (``HealthJitter``): a network's id, so a network's
    /// jitter is what it always was; for a line item its three ids, so two line items of one
    /// network failing together are not retried together.
    var jitterID: String {
        guard let placementID, let lineItemID else { return networkID }
        return networkID + "\u{0}" + placementID + "\u{0}" + lineItemID
    }

    /// For a person, escaped (R17): `nitx`, or `nitx line item level_end_nitx of level_end`.
    var text: String {
        HealthSubject.text(networkID: networkID, placementID: placementID, lineItemID: lineItemID)
    }

    /// ``text`` of the subject these ids name.
    static func text(networkID: String, placementID: String?, lineItemID: String?) -> String {
        let network = DisplayText.escaped(networkID)
        guard let lineItemID else { return network }
        return "\(network) line item \(DisplayText.escaped(lineItemID)) of \(DisplayText.escaped(placementID ?? ""))"
    }
}
