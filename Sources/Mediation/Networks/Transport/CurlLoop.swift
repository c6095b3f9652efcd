#if os(Linux)
import CCurl
import Foundation

/// ``HTTP/SystemTransport`` on Linux: the system's libcurl, its multi interface driven on one
/// thread of its own for the process, so that no transfer ever blocks the concurrency pool.
///
/// Other threads only queue commands (start a transfer, drop one) under a lock and wake the
/// loop (`curl_multi_wakeup`, which libcurl makes safe from any thread); every other libcurl
/// call, and each transfer's buffers (``CurlTransfer``), stay on the loop's thread. A request's
/// answer goes back through its ``CurlRequest/gate``, which the cancellation handler may answer
/// first.
final class CurlLoop: Sendable {
    /// The process's loop, started at its first use.
    static let shared = CurlLoop()

    /// What another thread asks of the loop.
    enum Command: Sendable {
        /// Start `request`'s transfer (unless it was already answered).
        case start(CurlRequest)
        /// Drop `request`'s transfer, if it still runs: it was cancelled.
        case drop(CurlRequest)
    }

    /// The multi handle: made once, never changed; `nil` when libcurl could not make one.
    private let multi: CurlMultiHandle?
    private let commands = Locked<[Command]>([])

    private init() {
        // Not thread-safe in every libcurl: done once, from this initialiser (a `static let`).
        _ = curl_global_init(Int(CURL_GLOBAL_SSL))
        guard let handle = curl_multi_init() else {
            multi = nil
            return
        }
        let multi = CurlMultiHandle(pointer: handle)
        // At most 8 connections to one host at a time (URLSession's default on Apple
        // platforms): more requests wait for one.
        _ = ccurl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, 8)
        self.multi = multi
        let commands = commands
        let thread = Thread {
            CurlLoop.run(multi, commands: commands)
        }
        thread.name = "mediation-http"
        thread.start()
    }

    /// Sends `request` (whose URL is on `origin`) within `limits`; answers `.cancelled` at once
    /// when the calling task is cancelled, and drops the transfer.
    func send(_ request: HTTP.Request, origin: HTTP.OriginLockedTransport.Origin, limits: HTTP.SystemTransport.Limits) async -> Result<HTTP.Response, HTTP.TransportError> {
        guard multi != nil else {
            return .failure(HTTP.TransportError(kind: .connection, message: "libcurl could not start"))
        }
        let transfer = CurlRequest(request: request, origin: origin, limits: limits)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard transfer.gate.install(continuation) else { return }
                submit(.start(transfer))
            }
        } onCancel: {
            transfer.gate.finish(.failure(HTTP.TransportError(kind: .cancelled, message: "request cancelled")))
            submit(.drop(transfer))
        }
    }

    private func submit(_ command: Command) {
        guard let multi else { return }
        commands.withLock { $0.append(command) }
        _ = curl_multi_wakeup(multi.pointer)
    }

    /// The loop: takes the queued commands, lets libcurl move every transfer on, answers the
    /// finished ones, and waits for the network, a timer of libcurl's or a wake-up.
    private static func run(_ multi: CurlMultiHandle, commands: Locked<[Command]>) {
        let handle = multi.pointer
        var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        var handles: [ObjectIdentifier: UnsafeMutableRawPointer] = [:]
        var pending: [Command] = []
        while true {
            commands.withLock { swap(&pending, &$0) }
            for command in pending {
                switch command {
                case .start(let request):
                    guard !request.gate.isFinished else { continue }
                    guard let transfer = CurlTransfer(request) else {
                        request.gate.finish(.failure(HTTP.TransportError(kind: .connection, message: "libcurl could not start a transfer")))
                        continue
                    }
                    if let error = transfer.configure() {
                        request.gate.finish(.failure(error))
                        transfer.close()
                        continue
                    }
                    transfers[transfer.easy] = transfer
                    handles[ObjectIdentifier(request)] = transfer.easy
                    _ = curl_multi_add_handle(handle, transfer.easy)
                case .drop(let request):
                    guard let easy = handles.removeValue(forKey: ObjectIdentifier(request)), let transfer = transfers.removeValue(forKey: easy) else { continue }
                    _ = curl_multi_remove_handle(handle, easy)
                    transfer.close()
                }
            }
            pending.removeAll(keepingCapacity: true)

            var running: Int32 = 0
            _ = curl_multi_perform(handle, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(handle, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                let code = message.pointee.data.result
                guard let transfer = transfers[easy] else { continue }
                _ = curl_multi_remove_handle(handle, easy)
                switch transfer.complete(code) {
                case .again:
                    _ = curl_multi_add_handle(handle, easy)
                case .finished(let result):
                    transfers.removeValue(forKey: easy)
                    handles.removeValue(forKey: ObjectIdentifier(transfer.request))
                    transfer.request.gate.finish(result)
                    transfer.close()
                }
            }
            // libcurl shortens the wait to its own next timer; a command wakes it at once.
            _ = curl_multi_poll(handle, nil, 0, 10_000, nil)
        }
    }
}

/// A libcurl multi handle, shared between the loop's thread and the threads that wake it.
///
/// `@unchecked Sendable`: the pointer never changes; other threads only pass it to
/// `curl_multi_wakeup`, which libcurl allows from any thread.
struct CurlMultiHandle: @unchecked Sendable {
    /// The `CURLM *`.
    let pointer: UnsafeMutableRawPointer
}

/// One request as the caller gave it, and the gate its answer goes through.
final class CurlRequest: Sendable {
    /// The request (its URL's scheme in lower case).
    let request: HTTP.Request
    /// The origin of the request's URL: every redirect must stay on it.
    let origin: HTTP.OriginLockedTransport.Origin
    /// The transport's bounds.
    let limits: HTTP.SystemTransport.Limits
    /// Answers the caller once.
    let gate = ResponseGate()

    init(request: HTTP.Request, origin: HTTP.OriginLockedTransport.Origin, limits: HTTP.SystemTransport.Limits) {
        self.request = request
        self.origin = origin
        self.limits = limits
    }
}

#endif
