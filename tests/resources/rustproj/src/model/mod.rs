//! Domain types.
mod order;

pub use order::{Order, Priced};

/// One line of an order.
#[derive(Debug, Clone)]
pub struct Item {
    pub name: String,
    pub qty: usize,
}

impl Item {
    pub fn new(name: &str, qty: usize) -> Self {
        Item { name: name.to_string(), qty }
    }
}
