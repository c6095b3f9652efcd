import Mediation

/// The host names of the standard networks' in-process sandbox servers. A URL taken from a
/// network's answer (a tracking ping, a creative bundle) never goes to one of them unless it is
/// on that network's own origin (engine rule R17): a live network's answer cannot reach a
/// sandbox, nor one sandbox another's.
package enum SandboxHosts {
    /// `sandbox.elo.test`, `nitx.sandbox`, `sandbox.qartvelo.test`.
    package static let all: Set<String> = [EloSandboxServer.host, NitxAdapterFactory.sandboxHost, QartveloSandboxServer.host]

    /// The reach of a network's transport for URLs from its answers: http(s) anywhere but the
    /// sandboxes' hosts.
    package static let answerURLs = HTTP.OriginLockedTransport.Reach.answerURLs(excludingHosts: all)
}
