/// How `mediate` exits, with the BSD `sysexits.h` values for errors so scripts can tell
/// them apart.
///
/// | code | meaning |
/// | --- | --- |
/// | 0 | success: the auction filled (or `validate` found the config valid, or `--help` / `--version`) |
/// | 2 | the auction ran and no source filled (no fill) |
/// | 64 | usage error (`EX_USAGE`): bad arguments, unknown placement, an option not yet available |
/// | 65 | invalid input data (`EX_DATAERR`): the config (the message names the JSON path) or the messages file |
/// | 66 | missing input (`EX_NOINPUT`): the config or messages file does not exist or cannot be read |
/// | 70 | internal software error (`EX_SOFTWARE`): the report could not be written |
/// | 73 | cannot create output (`EX_CANTCREAT`): the `--report` or `--events` file could not be created |
struct ExitCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The process exit status.
    var rawValue: Int32

    /// Creates an exit code.
    init(rawValue: Int32) { self.rawValue = rawValue }

    /// 0: filled, valid, or help / version printed.
    static let success = ExitCode(rawValue: 0)
    /// 2: the auction ran and nothing filled.
    static let noFill = ExitCode(rawValue: 2)
    /// 64 (`EX_USAGE`): the command line is wrong.
    static let usage = ExitCode(rawValue: 64)
    /// 65 (`EX_DATAERR`): the config or messages file is invalid.
    static let dataError = ExitCode(rawValue: 65)
    /// 66 (`EX_NOINPUT`): an input file is missing or unreadable.
    static let noInput = ExitCode(rawValue: 66)
    /// 70 (`EX_SOFTWARE`): an internal error.
    static let software = ExitCode(rawValue: 70)
    /// 73 (`EX_CANTCREAT`): the `--report` or `--events` file could not be created.
    static let cannotCreate = ExitCode(rawValue: 73)

    /// The number.
    var description: String { String(rawValue) }
}
