import Foundation

// All logic lives in MediateCommand so tests can call it with captured output.
let exitCode = await MediateCommand.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: .live())
exit(exitCode.rawValue)
