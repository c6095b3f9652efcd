/// A custom audience value the host sets: a string or a number.
///
/// Set through ``RequestTemplate/audience``; a segment's predicate (`custom.<key>`) compares a
/// string with strings and a number with numbers (a number against a string is false).
public enum AudienceValue: Hashable, Sendable {
    /// A string of at most 128 UTF-8 bytes.
    case string(String)
    /// A finite number.
    case number(Double)
}
