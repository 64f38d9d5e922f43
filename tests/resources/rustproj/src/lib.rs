//! Order book: the crate root.
pub mod model;
pub mod report;
pub mod store;
mod util;

use crate::model::{Item, Order as Ord};
use store::*;

/// Upper bound on items per order.
pub const MAX_ITEMS: usize = 10;

/// Builds an order, stores it, returns its total.
pub fn run() -> usize {
    let mut order = Ord::new();
    if order.is_empty() && MAX_ITEMS == 0 {
        return 0;
    }
    order.add(Item::new("Apple", 2));
    let mut mem = MemoryStore::new();
    save_all(&mut mem, &order);
    let _ = util::normalize(" x ");
    let _ = util::weigh(2);
    helpers::shout("done");
    let log = |m: &str| m.len();
    log("ran");
    order.total()
}

mod helpers {
    pub fn shout(s: &str) -> String {
        crate::util::normalize(s).to_uppercase()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_counts_items() {
        assert_eq!(run(), 2);
    }
}
