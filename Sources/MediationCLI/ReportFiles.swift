import Foundation
import MediationLearning

/// Opens `mediate optimize`'s `--reports` for reading a chunk at a time
/// (``RevenueReportInput``), after checking that each is a regular file and that together they
/// are at most ``RevenueReportParser/maximumSize`` bytes: one limit for one report or several.
enum ReportFiles {
    /// The reports at `paths`, ready to read; a failure has printed its error (66 for a file
    /// missing or unreadable, 65 for reports larger than the limit together).
    static func open(_ paths: [String], environment: CommandEnvironment) -> Result<[RevenueReportInput], MediateCommand.Exit> {
        func failure(_ code: ExitCode, _ message: String) -> Result<[RevenueReportInput], MediateCommand.Exit> {
            .failure(.init(code: MediateCommand.fail(code, message, environment: environment)))
        }
        var inputs: [RevenueReportInput] = []
        var total: UInt64 = 0
        for path in paths {
            let url = environment.resolve(path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                return failure(.noInput, "report file not found: \(path)")
            }
            guard !isDirectory.boolValue else {
                return failure(.noInput, "cannot read report file \(path): it is a directory")
            }
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
            guard (attributes?[.type] as? FileAttributeType) == .typeRegular else {
                return failure(.noInput, "cannot read report file \(path): not a regular file")
            }
            total += (attributes?[.size] as? NSNumber)?.uint64Value ?? 0
            guard total <= UInt64(RevenueReportParser.maximumSize) else {
                let limit = RevenueReportParser.maximumSize >> 20
                return failure(.dataError, paths.count == 1
                    ? "\(path): the report file is larger than \(limit) MiB (--reports takes at most \(limit) MiB, one report or several together)"
                    : "--reports: the reports are larger than \(limit) MiB together (at \(path)); --reports takes at most \(limit) MiB, one report or several together")
            }
            do throws(ReportError) {
                inputs.append(try RevenueReportInput(file: path, contentsOf: url))
            } catch {
                return failure(.noInput, "cannot read report file \(path)")
            }
        }
        return .success(inputs)
    }
}
