public enum AssetPackVersion { public static let current = "0.1.0" }
