// The test kit re-exports virtual time, so a test that imports `MediationTestKit` gets
// `ManualClock` too, as before virtual time became its own module.
@_exported import MediationVirtualTime
