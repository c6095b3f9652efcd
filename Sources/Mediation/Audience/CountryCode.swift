/// ISO 3166-1 country codes as the audience reads them: two letters (`"US"`, alpha-2) are the
/// engine's form, upper-cased; an assigned alpha-3 code (`"USA"`, the OpenRTB `geo.country` form
/// ``AdRequest/Device/country`` documents) is mapped to its alpha-2 code. Anything else is unknown.
package enum CountryCode {
    /// The country `text` names, upper-case alpha-2, or `nil` when it is no ISO 3166-1 code.
    /// - Parameter text: a host's country signal.
    package static func alpha2(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 2 || bytes.count == 3 else { return nil }
        var upper = [UInt8]()
        upper.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): upper.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): upper.append(byte - 32)
            default: return nil
            }
        }
        let code = String(decoding: upper, as: UTF8.self)
        return bytes.count == 2 ? code : alpha2ByAlpha3[code]
    }

    /// Whether `text` is two upper-case ASCII letters (how a configuration writes a country).
    package static func isAlpha2(_ text: String) -> Bool {
        text.utf8.count == 2 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    /// The code's number in `0 ..< 676` (`AA` is 0, `ZZ` 675) when `text` is exactly two
    /// upper-case ASCII letters, else `nil`: how a segment's country list is a bit set.
    /// - Parameter text: a country as the audience or a configuration holds it.
    package static func index(_ text: String) -> UInt16? {
        var bytes = text.utf8.makeIterator()
        guard let first = bytes.next(), let second = bytes.next(), bytes.next() == nil,
              (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first), (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(second) else { return nil }
        return UInt16(first - UInt8(ascii: "A")) * 26 + UInt16(second - UInt8(ascii: "A"))
    }

    /// The 249 officially assigned codes (Debian's iso-codes), each alpha-3 then alpha-2.
    private static let table: String =
        "ABWAWAFGAFAGOAOAIAAIALAAXALBALANDADAREAEARGARARMAMASMASATAAQATFTFATGAGAUSAUAUTATAZEAZBDIBIBELBEBENBJ" +
        "BESBQBFABFBGDBDBGRBGBHRBHBHSBSBIHBABLMBLBLRBYBLZBZBMUBMBOLBOBRABRBRBBBBRNBNBTNBTBVTBVBWABWCAFCFCANCA" +
        "CCKCCCHECHCHLCLCHNCNCIVCICMRCMCODCDCOGCGCOKCKCOLCOCOMKMCPVCVCRICRCUBCUCUWCWCXRCXCYMKYCYPCYCZECZDEUDE" +
        "DJIDJDMADMDNKDKDOMDODZADZECUECEGYEGERIERESHEHESPESESTEEETHETFINFIFJIFJFLKFKFRAFRFROFOFSMFMGABGAGBRGB" +
        "GEOGEGGYGGGHAGHGIBGIGINGNGLPGPGMBGMGNBGWGNQGQGRCGRGRDGDGRLGLGTMGTGUFGFGUMGUGUYGYHKGHKHMDHMHNDHNHRVHR" +
        "HTIHTHUNHUIDNIDIMNIMINDINIOTIOIRLIEIRNIRIRQIQISLISISRILITAITJAMJMJEYJEJORJOJPNJPKAZKZKENKEKGZKGKHMKH" +
        "KIRKIKNAKNKORKRKWTKWLAOLALBNLBLBRLRLBYLYLCALCLIELILKALKLSOLSLTULTLUXLULVALVMACMOMAFMFMARMAMCOMCMDAMD" +
        "MDGMGMDVMVMEXMXMHLMHMKDMKMLIMLMLTMTMMRMMMNEMEMNGMNMNPMPMOZMZMRTMRMSRMSMTQMQMUSMUMWIMWMYSMYMYTYTNAMNA" +
        "NCLNCNERNENFKNFNGANGNICNINIUNUNLDNLNORNONPLNPNRUNRNZLNZOMNOMPAKPKPANPAPCNPNPERPEPHLPHPLWPWPNGPGPOLPL" +
        "PRIPRPRKKPPRTPTPRYPYPSEPSPYFPFQATQAREUREROURORUSRURWARWSAUSASDNSDSENSNSGPSGSGSGSSHNSHSJMSJSLBSBSLESL" +
        "SLVSVSMRSMSOMSOSPMPMSRBRSSSDSSSTPSTSURSRSVKSKSVNSISWESESWZSZSXMSXSYCSCSYRSYTCATCTCDTDTGOTGTHATHTJKTJ" +
        "TKLTKTKMTMTLSTLTONTOTTOTTTUNTNTURTRTUVTVTWNTWTZATZUGAUGUKRUAUMIUMURYUYUSAUSUZBUZVATVAVCTVCVENVEVGBVG" +
        "VIRVIVNMVNVUTVUWLFWFWSMWSYEMYEZAFZAZMBZMZWEZW"

    private static let alpha2ByAlpha3: [String: String] = {
        var map: [String: String] = [:]
        let bytes = Array(table.utf8)
        var index = 0
        while index + 5 <= bytes.count {
            map[String(decoding: bytes[index..<index + 3], as: UTF8.self)] = String(decoding: bytes[index + 3..<index + 5], as: UTF8.self)
            index += 5
        }
        return map
    }()
}
