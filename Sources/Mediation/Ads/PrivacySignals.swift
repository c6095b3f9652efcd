extension AdRequest {
    /// The privacy signals the host app holds for this user, passed to every network with each
    /// ad request. Field meanings follow OpenRTB 2.6 `regs` (COPPA, GDPR, US privacy, GPP) and
    /// `user.consent` (the IAB TCF consent string).
    public struct Privacy: Hashable, Sendable, Codable {
        /// The request falls under US COPPA (`regs.coppa = 1`).
        public var coppa: Bool
        /// The user is under the age of consent (tag for users under age, TFUA).
        public var underAgeOfConsent: Bool
        /// Whether GDPR applies: `true`, `false`, or `nil` when unknown (`regs.gdpr` omitted).
        public var gdprApplies: Bool?
        /// The IAB TCF consent string, when GDPR applies (`user.consent`).
        public var tcfConsentString: String?
        /// The US Privacy (CCPA) string, e.g. `1YNN` (`regs.us_privacy`).
        public var usPrivacyString: String?
        /// The Global Privacy Platform string (`regs.gpp`).
        public var gppString: String?
        /// The GPP section ids that apply (`regs.gpp_sid`).
        public var gppSectionIDs: [Int]
        /// The user's answer to the app's own consent prompt: `true`, `false`, or `nil` when not
        /// asked.
        public var userConsent: Bool?
        /// The OS-level limit-ad-tracking signal (`device.lmt = 1`); on iOS, ATT not authorized.
        public var limitAdTracking: Bool

        /// Creates privacy signals; the defaults are the least permissive reading of "unknown"
        /// for tracking (tracking limited) and "not applicable" for the regulations.
        public init(
            coppa: Bool = false,
            underAgeOfConsent: Bool = false,
            gdprApplies: Bool? = nil,
            tcfConsentString: String? = nil,
            usPrivacyString: String? = nil,
            gppString: String? = nil,
            gppSectionIDs: [Int] = [],
            userConsent: Bool? = nil,
            limitAdTracking: Bool = true
        ) {
            self.coppa = coppa
            self.underAgeOfConsent = underAgeOfConsent
            self.gdprApplies = gdprApplies
            self.tcfConsentString = tcfConsentString
            self.usPrivacyString = usPrivacyString
            self.gppString = gppString
            self.gppSectionIDs = gppSectionIDs
            self.userConsent = userConsent
            self.limitAdTracking = limitAdTracking
        }

        /// Whether a regulation forbids sending personal user data (COPPA, under age, or GDPR
        /// applies).
        public var restrictsUserData: Bool {
            coppa || underAgeOfConsent || gdprApplies == true
        }
    }
}
