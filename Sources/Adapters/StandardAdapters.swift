/// The factories of the networks this package ships; each network's issue adds its line.
let standardFactories: [any NetworkAdapterFactory] = [
    FallbackAdapterFactory(),
    EloAdapterFactory(),
    NitxAdapterFactory(),
    QartveloAdapterFactory(),
]
