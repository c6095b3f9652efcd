/// An ad an auction released or handed over as its winner, known by its object and its id
/// without keeping it alive: the machine holds no reference to an ad it let go (the winner goes
/// with the caller's outcome). Both must match, so an object freed and another made at its
/// address is not taken for it unless it repeats the ad id, which the adapter contract forbids.
struct SettledAd {
    private let object: ObjectIdentifier
    private let id: String

    /// The settled form of `ad`.
    init(_ ad: any LoadedAd) {
        object = ObjectIdentifier(ad)
        id = ad.id
    }

    /// Whether `ad` is the settled one.
    func matches(_ ad: any LoadedAd) -> Bool {
        object == ObjectIdentifier(ad) && id == ad.id
    }
}
