import Adapters
import Foundation
import MediationCLI

// All logic lives in the MediationCLI library (Sources/MediationCLI), so tests (and hosts that
// add their own networks) call it with captured output or another registry.
exit(await Mediate.main(registry: .standard))
