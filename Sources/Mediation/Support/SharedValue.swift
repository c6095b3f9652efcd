/// An immutable value in one shared allocation: a struct that keeps many fields in one
/// `SharedValue` copies one reference, not every string and array it holds. A change replaces
/// the box (see ``changed(_:)``), so copies that share the old one never see it.
package final class SharedValue<Value: Sendable>: Sendable {
    /// The value.
    package let value: Value

    /// Boxes `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// A new box holding the value as `change` leaves it.
    /// - Parameter change: edits a copy of the value.
    /// - Returns: the new box.
    package func changed(_ change: (inout Value) -> Void) -> SharedValue<Value> {
        var value = value
        change(&value)
        return SharedValue(value)
    }
}
