import Foundation

/// How a state store keeps one value: framed with its key, its length and a checksum, so that
/// reading it back can tell a good value from a truncated, tampered or foreign one (engine
/// rule R21).
///
/// Layout (integers big-endian):
/// ```
/// "MEDSTATE"            8 bytes, the magic
/// format                1 byte, 1
/// key length            2 bytes, then the key's UTF-8 bytes
/// value length          4 bytes, then the value
/// SHA-256               32 bytes, of every byte above
/// ```
/// The checksum catches damage and naive edits, not an attacker with write access to the
/// directory: what must resist one (a remote configuration) is signed, and verified again when
/// read back.
package enum StateRecord {
    /// The magic that opens every record.
    static let magic = Array("MEDSTATE".utf8)
    /// The format this version writes and reads.
    package static let format: UInt8 = 1
    /// The bytes a record adds to its key and value.
    static let overhead = magic.count + 1 + 2 + 4 + 32

    /// The record of `value` under `key`.
    /// - Parameters:
    ///   - value: the value.
    ///   - key: its key (at most ``StateStoreKey/maximumLength`` bytes).
    package static func encode(_ value: Data, key: String) -> Data {
        let keyBytes = Array(key.utf8)
        var bytes = magic
        bytes.reserveCapacity(overhead + keyBytes.count + value.count)
        bytes.append(format)
        bytes.append(UInt8(truncatingIfNeeded: keyBytes.count >> 8))
        bytes.append(UInt8(truncatingIfNeeded: keyBytes.count))
        bytes += keyBytes
        let length = UInt32(truncatingIfNeeded: value.count)
        bytes += [UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16), UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)]
        bytes += value
        bytes += SHA256Digest.hash(bytes)
        return Data(bytes)
    }

    /// The value a record holds for `key`.
    /// - Parameters:
    ///   - record: the stored bytes.
    ///   - key: the key it must belong to.
    ///   - maximumValueBytes: the largest value accepted.
    /// - Returns: the value, or why the record is refused (for a `discarded` error).
    package static func decode(_ record: Data, key: String, maximumValueBytes: Int) -> Result<Data, Refusal> {
        let bytes = [UInt8](record)
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else {
            return .failure(Refusal("it is not a state file of this engine (another program's file?)"))
        }
        guard bytes.count > magic.count else { return .failure(Refusal("the file is truncated")) }
        let version = bytes[magic.count]
        guard version == format else {
            return .failure(Refusal(version > format
                ? "it was written by a newer version of the engine (format \(version); this version reads format \(format))"
                : "it has an unknown format \(version)"))
        }
        var index = magic.count + 1
        guard let keyLength = read(&index, count: 2, from: bytes).map({ Int($0[0]) << 8 | Int($0[1]) }),
              let keyBytes = read(&index, count: keyLength, from: bytes),
              let lengthBytes = read(&index, count: 4, from: bytes)
        else { return .failure(Refusal("the file is truncated")) }
        guard keyBytes == Array(key.utf8) else {
            return .failure(Refusal("it holds the value of another key"))
        }
        let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
        guard length <= maximumValueBytes else {
            return .failure(Refusal("its value of \(length) bytes is over the store's limit of \(maximumValueBytes)"))
        }
        let valueStart = index
        guard let _ = read(&index, count: length, from: bytes), let checksum = read(&index, count: 32, from: bytes) else {
            return .failure(Refusal("the file is truncated"))
        }
        guard index == bytes.count else {
            return .failure(Refusal("it has \(bytes.count - index) unexpected bytes after its end"))
        }
        guard SHA256Digest.hash(Array(bytes[0..<(valueStart + length)])) == checksum else {
            return .failure(Refusal("its checksum does not match: the file was changed or damaged"))
        }
        return .success(Data(bytes[valueStart..<(valueStart + length)]))
    }

    /// Why a record was refused.
    package struct Refusal: Error, Sendable, Hashable {
        /// What is wrong with it, for a person.
        package var reason: String

        init(_ reason: String) {
            self.reason = reason
        }
    }

    private static func read(_ index: inout Int, count: Int, from bytes: [UInt8]) -> [UInt8]? {
        guard count >= 0, bytes.count - index >= count else { return nil }
        defer { index += count }
        return Array(bytes[index..<(index + count)])
    }
}

extension StateRecord {
    /// The key named in a record's header (its first bytes), or `nil` when they are not a
    /// header of this format.
    /// - Parameter header: at least the magic, the format, the key length and the key.
    static func key(inHeader header: Data) -> String? {
        let bytes = [UInt8](header)
        let start = magic.count + 3
        guard bytes.count >= start, Array(bytes[0..<magic.count]) == magic, bytes[magic.count] == format else { return nil }
        let length = Int(bytes[magic.count + 1]) << 8 | Int(bytes[magic.count + 2])
        guard length > 0, bytes.count >= start + length else { return nil }
        return String(bytes: bytes[start..<(start + length)], encoding: .utf8)
    }
}
