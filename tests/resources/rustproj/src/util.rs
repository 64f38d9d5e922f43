/// Trims and lowercases.
pub fn normalize(s: &str) -> String {
    s.trim().to_lowercase()
}

macro_rules! define_weight {
    () => {
        /// Defined by a macro: the parser never sees it.
        pub type Weight = u32;
    };
}
define_weight!();

pub fn weigh(w: Weight) -> Weight {
    w
}
