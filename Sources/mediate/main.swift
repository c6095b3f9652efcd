import Adapters
import Foundation
import MediationCommandLine

// All logic lives in the MediationCommandLine library, so tests (and hosts that add their own
// networks) call it with captured output or another registry.
exit(await Mediate.main(registry: .standard))
