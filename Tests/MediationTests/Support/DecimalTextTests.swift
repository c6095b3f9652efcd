import Testing
@testable import Mediation

/// The one number formatter of every report (`DecimalText`).
@Suite("DecimalText")
struct DecimalTextTests {
    @Test("fixed decimals: padded, rounded half away from zero, no negative zero, never traps")
    func fixed() {
        #expect(DecimalText.fixed(1.2, digits: 2) == "1.20")
        #expect(DecimalText.fixed(0.125, digits: 2) == "0.13")
        #expect(DecimalText.fixed(-0.125, digits: 2) == "-0.13")
        #expect(DecimalText.fixed(-0.0001, digits: 2) == "0.00")
        #expect(DecimalText.fixed(-0.0, digits: 4) == "0.0000")
        #expect(DecimalText.fixed(1234.5, digits: 0) == "1235")
        #expect(DecimalText.fixed(0.000001, digits: 6) == "0.000001")
        #expect(DecimalText.fixed(3.14159, digits: 12) == "3.141590000") // at most 9 decimals
        #expect(DecimalText.fixed(.infinity, digits: 2) == "inf")
        #expect(DecimalText.fixed(.nan, digits: 2) == "nan")
        #expect(DecimalText.fixed(1e300, digits: 2) == "1e+300")
        #expect(DecimalText.fixed(8.9e17, digits: 1) == "890000000000000000.0")
    }

    @Test("significant digits: a tiny difference keeps its figure (3.333e-7, never 0.000000), rounding settles the digit count")
    func significant() {
        #expect(DecimalText.significant(3.3333e-7) == "3.333e-7")
        #expect(DecimalText.significant(-1e-6) == "-1.000e-6")
        #expect(DecimalText.significant(0.012345) == "0.01235")
        #expect(DecimalText.significant(-1.5) == "-1.500")
        #expect(DecimalText.significant(0.99996) == "1.000")
        #expect(DecimalText.significant(12345.6) == "12346")
        #expect(DecimalText.significant(0.000123456) == "0.0001235")
        #expect(DecimalText.significant(1e-7) == "1.000e-7")
        #expect(DecimalText.significant(0) == "0")
        #expect(DecimalText.significant(.nan) == "nan")
        #expect(DecimalText.significant(2.5, digits: 1) == "3")
    }

    @Test("a number as it is: whole without a fraction, else the shortest form that reads back, never rounded")
    func number() {
        #expect(DisplayText.number(90) == "90")
        #expect(DisplayText.number(-0.0) == "0")
        #expect(DisplayText.number(71.9) == "71.9")
        #expect(DisplayText.number(1e-9) == "1e-9")
        #expect(DisplayText.number(2.5e-7) == "2.5e-7")
        #expect(DisplayText.number(.leastNonzeroMagnitude) == "5e-324")
        #expect(DisplayText.number(1e15) == "1000000000000000")
        #expect(DisplayText.number(1e16) == "1e16")
        #expect(DisplayText.number(2.5e20) == "2.5e20")
        #expect(DisplayText.number(123456.789) == "123456.789")
        #expect(DisplayText.number(.infinity) == "inf")
        #expect(DisplayText.number(.nan) == "nan")
        for value in [1e-9, 71.9, .leastNonzeroMagnitude, 0.1 + 0.2, .greatestFiniteMagnitude] {
            #expect(Double(DisplayText.number(value)) == value)
        }
    }

    @Test("trimmed: two to six decimals by default")
    func trimmed() {
        #expect(DecimalText.trimmed(1.2) == "1.20")
        #expect(DecimalText.trimmed(0.0012345) == "0.001235")
        #expect(DecimalText.trimmed(2) == "2.00")
        #expect(DecimalText.trimmed(0.5, minimumDigits: 0) == "0.5")
        #expect(DecimalText.trimmed(3, minimumDigits: 0, maximumDigits: 6) == "3")
    }
}
