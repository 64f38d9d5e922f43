use crate::model::Order;

/// Keys are normalized differently here: spaces become dashes.
pub fn normalize(key: &str) -> String {
    key.replace(' ', "-")
}

pub trait Store {
    fn put(&mut self, key: String, value: usize);
}

#[derive(Default)]
pub struct MemoryStore {
    entries: Vec<(String, usize)>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Store for MemoryStore {
    fn put(&mut self, key: String, value: usize) {
        self.entries.push((normalize(&key), value));
    }
}

pub fn save_all(store: &mut dyn Store, order: &Order) {
    store.put(order.label(), order.total());
}
