import Foundation
@testable import Mediation
import Testing

/// The state store (engine rule R21): values by key, written atomically, read back as untrusted
/// input. A truncated, tampered, foreign or newer-format file is removed and reported as
/// `discarded`, never returned.
@Suite("State store")
struct StateStoreTests {
    /// A fresh directory for one test, removed at the end.
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("state-store-\(UUID().uuidString)", isDirectory: true)
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    @Test("a file store keeps values across instances (a relaunch), by key, with mode 0600 in a 0700 directory")
    func fileStoreRoundTrip() throws {
        let directory = Directory()
        let store = try FileStateStore(directory: directory.url)
        try store.setData(Data("one".utf8), forKey: "config.cache")
        try store.setData(Data("two".utf8), forKey: "health.Élo/Ω") // any characters; encoded in the file name
        try store.setData(Data(), forKey: "empty")
        let reopened = try FileStateStore(directory: directory.url)
        #expect(try reopened.data(forKey: "config.cache") == Data("one".utf8))
        #expect(try reopened.data(forKey: "health.Élo/Ω") == Data("two".utf8))
        #expect(try reopened.data(forKey: "empty") == Data())
        #expect(try reopened.data(forKey: "missing") == nil)
        #expect(try reopened.keys() == ["config.cache", "empty", "health.Élo/Ω"])
        let attributes = try FileManager.default.attributesOfItem(atPath: store.path(for: "config.cache"))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directoryAttributes = try FileManager.default.attributesOfItem(atPath: directory.url.path)
        #expect((directoryAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        try reopened.setData(nil, forKey: "config.cache")
        #expect(try reopened.data(forKey: "config.cache") == nil)
        #expect(try reopened.keys() == ["empty", "health.Élo/Ω"])
        // No temporary file is left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(!names.contains { $0.hasSuffix(".tmp") })
    }

    @Test("keys that differ only in case, or that would make a long name, get files of their own")
    func fileNames() throws {
        let directory = Directory()
        let store = try FileStateStore(directory: directory.url)
        let long = String(repeating: "é", count: 100) // 200 bytes of UTF-8
        try store.setData(Data("lower".utf8), forKey: "a")
        try store.setData(Data("upper".utf8), forKey: "A")
        try store.setData(Data("long".utf8), forKey: long)
        try store.setData(Data("dot".utf8), forKey: ".hidden")
        #expect(try store.data(forKey: "a") == Data("lower".utf8))
        #expect(try store.data(forKey: "A") == Data("upper".utf8))
        #expect(try store.data(forKey: long) == Data("long".utf8))
        #expect(try store.data(forKey: ".hidden") == Data("dot".utf8))
        #expect(FileStateStore.fileName(for: long).hasPrefix("~"))
        #expect(FileStateStore.fileName(for: ".hidden") == "%2ehidden")
        #expect(try store.keys() == [".hidden", "A", "a", long].sorted())
        #expect(throws: StateStoreError.self) { try store.setData(Data(), forKey: "") }
        #expect(throws: StateStoreError.self) { try store.setData(Data(), forKey: String(repeating: "k", count: 201)) }
    }

    /// Each way a file can go bad, and the reason the store gives.
    static let damages: [(name: String, damage: @Sendable (inout [UInt8]) -> Void, reason: String)] = [
        ("truncated", { $0.removeLast(10) }, "truncated"),
        ("one byte changed", { $0[$0.count / 2] ^= 0x20 }, "checksum"),
        ("a byte appended", { $0.append(0) }, "unexpected bytes"),
        ("another program's file", { $0 = Array("{\"hello\": true}".utf8) }, "not a state file"),
        ("a newer format", { $0[8] = 2 }, "newer version"),
        ("empty", { $0 = [] }, "not a state file"),
    ]

    @Test("a damaged file is removed and reported as discarded with its reason", arguments: 0..<6)
    func damagedFilesAreDiscarded(index: Int) throws {
        let (name, damage, reason) = Self.damages[index]
        let directory = Directory()
        let store = try FileStateStore(directory: directory.url)
        try store.setData(Data("the cached value".utf8), forKey: "config.cache")
        let path = store.path(for: "config.cache")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        damage(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try store.data(forKey: "config.cache")
            Issue.record("\(name): the damaged value was returned")
        } catch {
            #expect(error.kind == .discarded, "\(name)")
            #expect(error.message.contains(reason), "\(name): \(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: path), "\(name): the file was not removed")
        #expect(try store.data(forKey: "config.cache") == nil)
    }

    @Test("a file holding another key's record, a symbolic link and an oversized file are discarded")
    func foreignAndOversizedFiles() throws {
        let directory = Directory()
        let store = try FileStateStore(opening: directory.url, maximumValueBytes: 64)
        try store.setData(Data("b".utf8), forKey: "b")
        try FileManager.default.copyItem(atPath: store.path(for: "b"), toPath: store.path(for: "a"))
        #expect { try store.data(forKey: "a") } throws: { ($0 as? StateStoreError)?.message.contains("another key") == true }
        try FileManager.default.createSymbolicLink(atPath: store.path(for: "link"), withDestinationPath: store.path(for: "b"))
        #expect { try store.data(forKey: "link") } throws: { ($0 as? StateStoreError)?.message.contains("symbolic link") == true }
        try Data(repeating: 7, count: 10_000).write(to: URL(fileURLWithPath: store.path(for: "big")))
        #expect { try store.data(forKey: "big") } throws: { ($0 as? StateStoreError)?.kind == .discarded }
        #expect { try store.setData(Data(repeating: 1, count: 65), forKey: "b") } throws: { ($0 as? StateStoreError)?.kind == .tooLarge }
        #expect(try store.data(forKey: "b") == Data("b".utf8)) // a refused write keeps the old value
    }

    @Test("a directory at a key's path is discarded without a claim that it was removed: it stays, and the message says so; a removed file still says removed")
    func directoryAtAKeyIsNotClaimedRemoved() throws {
        let directory = Directory()
        let store = try FileStateStore(directory: directory.url)
        try FileManager.default.createDirectory(atPath: store.path(for: "config.cache"), withIntermediateDirectories: false)
        #expect { try store.data(forKey: "config.cache") } throws: { error in
            guard let error = error as? StateStoreError, error.kind == .discarded else { return false }
            return error.message.contains("not a regular file") && error.message.contains("not removed") && !error.message.hasSuffix("; removed")
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: store.path(for: "config.cache"), isDirectory: &isDirectory) && isDirectory.boolValue)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: store.path(for: "other")))
        #expect { try store.data(forKey: "other") } throws: { ($0 as? StateStoreError)?.message.hasSuffix("; removed") == true }
        #expect(!FileManager.default.fileExists(atPath: store.path(for: "other")))
    }

    @Test("a temporary file an interrupted write left is removed when the store opens")
    func leftoverTemporaryFiles() throws {
        let directory = Directory()
        _ = try FileStateStore(directory: directory.url)
        // A process that no longer runs (no pid is this high), this process, and a name that
        // does not parse.
        let leftovers = [".config.cache.state.\(Int32.max - 1).1.tmp", ".config.cache.state.\(getpid()).7.tmp", ".config.cache.tmp"].map { directory.url.appendingPathComponent($0) }
        for leftover in leftovers { try Data("half".utf8).write(to: leftover) }
        _ = try FileStateStore(directory: directory.url)
        for leftover in leftovers { #expect(!FileManager.default.fileExists(atPath: leftover.path), "\(leftover.lastPathComponent)") }
    }

    @Test("opening a store removes a live process's temporary file too: every write holds the directory's lock, which the opener takes, so none is in progress")
    func temporaryFilesUnderTheLock() throws {
        let directory = Directory()
        _ = try FileStateStore(directory: directory.url)
        let stray = directory.url.appendingPathComponent(".install.id.state.\(getppid()).1.tmp")
        try Data("half".utf8).write(to: stray)
        _ = try FileStateStore(directory: directory.url)
        #expect(!FileManager.default.fileExists(atPath: stray.path))
    }

    @Test("read-modify-writes from eight store objects on one directory, on eight threads, lose no update: the lock holds across store objects (as across processes)")
    func updatesUnderTheLockLoseNothing() throws {
        let directory = Directory()
        let stores = try (0..<8).map { _ in try FileStateStore(directory: directory.url) }
        let done = DispatchSemaphore(value: 0)
        let failures = Locked(0)
        for store in stores {
            Thread.detachNewThread {
                for _ in 0..<25 {
                    do {
                        try store.update("counter") { current in
                            let count = current.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                            return Data(String(count + 1).utf8)
                        }
                    } catch {
                        failures.withLock { $0 += 1 }
                    }
                }
                done.signal()
            }
        }
        for _ in stores { done.wait() }
        #expect(failures.withLock { $0 } == 0)
        #expect(try stores[0].data(forKey: "counter") == Data("200".utf8))
    }

    @Test("the floor of applied versions only rises: twenty store objects raising it to 1 to 20 at once leave 20, and the cache beside it is never older")
    func appliedVersionOnlyRises() throws {
        let directory = Directory()
        let done = DispatchSemaphore(value: 0)
        let metadata = ConfigurationCache.Metadata(entityTag: nil, fetchedAt: WallClockTime(millisecondsSince1970: 0), maxAgeSeconds: 60, staleSeconds: 0)
        for version in 1...20 {
            let store = try FileStateStore(directory: directory.url)
            Thread.detachNewThread {
                _ = try? ConfigurationCache(store: store).raiseAppliedVersion(to: version, caching: (Data("v\(version)".utf8), metadata))
                done.signal()
            }
        }
        for _ in 1...20 { done.wait() }
        let cache = ConfigurationCache(store: try FileStateStore(directory: directory.url))
        #expect(cache.appliedVersion().version == 20)
        #expect(try cache.read().get()?.envelope == Data("v20".utf8))
        // A lower version later neither lowers the floor nor replaces the cache.
        #expect(try cache.raiseAppliedVersion(to: 7, caching: (Data("v7".utf8), metadata)) == 20)
        #expect(cache.appliedVersion().version == 20)
        #expect(try cache.read().get()?.envelope == Data("v20".utf8))
    }

    @Test("the memory store checks its records the same way, and typed values that do not decode are discarded")
    func memoryStore() throws {
        let store = MemoryStateStore()
        try store.setValue(["a": 1], forKey: "health.elo")
        #expect(try store.value([String: Int].self, forKey: "health.elo") == ["a": 1])
        var record = [UInt8](try #require(store.record(forKey: "health.elo")))
        record[record.count - 40] ^= 1
        store.setRecord(Data(record), forKey: "health.elo")
        #expect { try store.data(forKey: "health.elo") } throws: { ($0 as? StateStoreError)?.kind == .discarded }
        #expect(store.record(forKey: "health.elo") == nil)
        try store.setData(Data("not json".utf8), forKey: "count")
        #expect { try store.value(Int.self, forKey: "count") } throws: { ($0 as? StateStoreError)?.kind == .discarded }
        #expect(try store.keys() == [])
        store.failAll("disk full")
        #expect { try store.setData(Data(), forKey: "x") } throws: { ($0 as? StateStoreError)?.kind == .unavailable }
    }

    @Test("a typed value is read as strictly as a configuration: a key twice at any depth, or text after the value, is discarded and removed, the message naming the JSON path",
          arguments: [
              (#"{"a":{"b":1,"b":2}}"#, #"a.b: the key "b" appears twice"#),
              (#"{"a":{"b":1},"a":{"b":2}}"#, #"a: the key "a" appears twice"#),
              (#"{"a":{"b":1}} {}"#, "unexpected text after the end of the document"),
              (#"{"a":{"b":1},}"#, "$"),
          ])
    func typedValuesAreStrictJSON(value: String, says: String) throws {
        let directory = Directory()
        let store = try FileStateStore(directory: directory.url)
        try store.setData(Data(value.utf8), forKey: "nested")
        #expect { try store.value([String: [String: Int]].self, forKey: "nested") } throws: { error in
            guard let error = error as? StateStoreError else { return false }
            return error.kind == .discarded && error.message.contains("not strict JSON") && error.message.contains(says) && error.message.hasSuffix("; removed")
        }
        #expect(try store.data(forKey: "nested") == nil)
        try store.setValue(["a": ["b": 1]], forKey: "nested")
        #expect(try store.value([String: [String: Int]].self, forKey: "nested") == ["a": ["b": 1]])
    }
}
