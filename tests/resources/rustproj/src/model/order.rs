use super::Item;
use crate::util::normalize as norm;

/// Anything with a price.
pub trait Priced {
    fn price(&self) -> usize;

    fn describe(&self) -> String {
        let units = self.price();
        format!("{} units", units)
    }
}

#[derive(Debug, Default)]
pub struct Order {
    items: Vec<Item>,
}

impl Order {
    pub fn new() -> Self {
        Order::default()
    }

    pub fn add(&mut self, item: Item) {
        self.items.push(item);
    }

    pub fn label(&self) -> String {
        let names: Vec<String> = self.items.iter().map(|i| norm(&i.name)).collect();
        names.join(",")
    }

    pub fn total(&self) -> usize {
        self.price()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl Priced for Order {
    fn price(&self) -> usize {
        self.items.iter().map(|i| i.qty).sum()
    }
}
