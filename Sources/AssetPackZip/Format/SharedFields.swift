/// A record that keeps the fields it shares with another record as one value (``fields``), parsed and
/// written by that value, and reaches them as its own properties (`header.crc32`, `record.totalEntries`).
@dynamicMemberLookup
protocol SharedFieldsRecord {
    /// The shared fields' type: ``EntryFields``.
    associatedtype Fields
    /// The shared fields.
    var fields: Fields { get set }
}

extension SharedFieldsRecord {
    /// `record.name` for the shared field `name`.
    subscript<Value>(dynamicMember field: WritableKeyPath<Fields, Value>) -> Value {
        get { fields[keyPath: field] }
        set { fields[keyPath: field] = newValue }
    }
}
