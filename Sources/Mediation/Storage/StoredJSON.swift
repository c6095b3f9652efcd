import Foundation

/// Decodes a JSON value read back from a ``StateStore`` as untrusted input (engine rule R21),
/// as strictly as a configuration file is read (R15): ``StrictJSONReader`` (RFC 8259, valid
/// UTF-8, nothing after the value), no key twice in any object, and only then `JSONDecoder`.
/// `JSONDecoder` alone takes a repeated key silently (one of the two values wins), so
/// `{"version":1,…,"version":2}` could pass a check of `version` that the other value fails.
package enum StoredJSON {
    /// `data` decoded as `T`, or why not, naming the JSON path (for a `discarded` error).
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - data: the stored bytes.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) -> Result<T, StateRecord.Refusal> {
        if let problem = strictnessProblem(of: data) {
            return .failure(StateRecord.Refusal("the stored value is not strict JSON: \(problem)"))
        }
        do {
            return .success(try JSONDecoder().decode(T.self, from: data))
        } catch {
            return .failure(StateRecord.Refusal("the stored value does not decode as \(T.self)"))
        }
    }

    /// Why `data` is not strict JSON (``StrictJSONReader``, no key twice in any object), as
    /// `path: message`; `nil` when it is. For values an adapter reads back from its own storage
    /// (R21) before it decodes them with `JSONDecoder` or `JSONSerialization`, which both take
    /// a repeated key silently.
    /// - Parameter data: the stored bytes.
    package static func strictnessProblem(of data: Data) -> String? {
        do {
            let root = try StrictJSONReader.parse([UInt8](data))
            _ = try ConfigurationReading.jsonValue(root, at: .root)
            return nil
        } catch {
            return "\(error.path): \(error.message)"
        }
    }
}
