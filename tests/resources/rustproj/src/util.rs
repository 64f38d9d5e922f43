/// Trims and lowercases.
pub fn normalize(s: &str) -> String {
    s.trim().to_lowercase()
}
