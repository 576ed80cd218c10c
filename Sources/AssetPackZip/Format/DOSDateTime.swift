/// MS-DOS date and time fields (APPNOTE 4.4.6): 2-second resolution, years 1980–2107, no time zone.
public struct DOSDateTime: Hashable, Sendable {
    /// The packed time field: hours << 11 | minutes << 5 | seconds / 2.
    public var time: UInt16
    /// The packed date field: (year - 1980) << 9 | month << 5 | day.
    public var date: UInt16

    /// Wraps raw header fields.
    public init(time: UInt16, date: UInt16) {
        self.time = time
        self.date = date
    }

    /// The DOS fields for a Unix time (seconds since 1970, taken as UTC), clamped to 1980-01-01…2107-12-31.
    public init(unixTime: Int64) {
        let minimum: Int64 = 315_532_800  // 1980-01-01T00:00:00Z
        let maximum: Int64 = 4_354_819_199  // 2107-12-31T23:59:59Z
        let clamped = min(max(unixTime, minimum), maximum)
        var days = clamped / 86_400
        let seconds = clamped % 86_400
        // Civil-from-days (Howard Hinnant's algorithm), valid for the whole DOS range.
        days += 719_468
        let era = days / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.date = UInt16((year - 1980) << 9 | month << 5 | day)
        self.time = UInt16((seconds / 3600) << 11 | ((seconds % 3600) / 60) << 5 | (seconds % 60) / 2)
    }

    /// The Unix time these fields denote, read as UTC; nil for impossible dates (month 0, day 0).
    public var unixTime: Int64? {
        let year = Int64(date >> 9) + 1980, month = Int64((date >> 5) & 0xF), day = Int64(date & 0x1F)
        let hour = Int64(time >> 11), minute = Int64((time >> 5) & 0x3F), second = Int64(time & 0x1F) * 2
        guard (1...12).contains(month), day >= 1, hour < 24, minute < 60, second < 60 else { return nil }
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }
}
