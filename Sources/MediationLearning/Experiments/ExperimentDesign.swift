import Foundation
import Mediation

/// What a report needs of one configured experiment: its id, its variants in order (the first is
/// control) and their weights in basis points. Read from the config's top-level `experiments`
/// (`docs/experiments.md`); the engine's loader checks the rest of the experiment.
package struct ExperimentDesign: Equatable, Sendable {
    /// One variant.
    package struct Variant: Equatable, Sendable {
        /// Its id (`A`, `B`).
        package var id: String
        /// Its share of the experiment's users, basis points.
        package var weightBP: Int

        /// Creates a variant.
        package init(id: String, weightBP: Int) {
            self.id = id
            self.weightBP = weightBP
        }
    }

    /// The experiment's id.
    package var id: String
    /// The variants; the first is control.
    package var variants: [Variant]

    /// Creates a design.
    package init(id: String, variants: [Variant]) {
        self.id = id
        self.variants = variants
    }

    /// The experiments of the config JSON `bytes`, in order.
    /// - Throws: ``ReportError`` at `file` when the config is not JSON, has no `experiments`
    ///   array, or an experiment lacks its `id` or has fewer than 2 variants (each an `id` and a
    ///   `weight_bp` from 0 to 10,000, the ids distinct).
    package static func experiments(inConfig bytes: [UInt8], file: String) throws(ReportError) -> [ExperimentDesign] {
        struct Config: Decodable {
            struct Experiment: Decodable {
                struct Variant: Decodable {
                    var id: String
                    var weight_bp: Int
                }
                var id: String
                var variants: [Variant]
            }
            var experiments: [Experiment]?
        }
        let config: Config
        do {
            config = try JSONDecoder().decode(Config.self, from: Data(bytes))
        } catch {
            throw ReportError(ReportLocation(file: file), "the config's experiments cannot be read: each needs an id and variants with an id and a weight_bp (\(error))")
        }
        guard let experiments = config.experiments, !experiments.isEmpty else {
            throw ReportError(ReportLocation(file: file), "the config has no experiments (a top-level \"experiments\" array)")
        }
        var designs: [ExperimentDesign] = []
        for (index, experiment) in experiments.enumerated() {
            let path = "$.experiments[\(index)]"
            guard experiment.variants.count >= 2 else {
                throw ReportError(ReportLocation(file: file), "\(path).variants: an experiment needs at least 2 variants (the first is control)")
            }
            guard Set(experiment.variants.map(\.id)).count == experiment.variants.count else {
                throw ReportError(ReportLocation(file: file), "\(path).variants: variant ids must be distinct")
            }
            guard experiment.variants.allSatisfy({ (0...10_000).contains($0.weight_bp) }), experiment.variants.contains(where: { $0.weight_bp > 0 }) else {
                throw ReportError(ReportLocation(file: file), "\(path).variants: each weight_bp is 0 to 10000 and one is above 0")
            }
            guard !designs.contains(where: { $0.id == experiment.id }) else {
                throw ReportError(ReportLocation(file: file), "\(path).id: the experiment \"\(DisplayText.escaped(experiment.id))\" is given twice")
            }
            designs.append(ExperimentDesign(id: experiment.id, variants: experiment.variants.map { Variant(id: $0.id, weightBP: $0.weight_bp) }))
        }
        return designs
    }
}
