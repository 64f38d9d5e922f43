//! Reporting lives apart from the model: an `impl` away from its type.
use crate::model::Order;

impl Order {
    /// Declared here, a method of `Order` all the same.
    pub fn summary(&self) -> String {
        let n = self.count();
        format!("{} items", n)
    }

    fn count(&self) -> usize {
        self.total()
    }
}

pub fn print_summary(order: &Order) -> String {
    super::util::normalize(&order.summary())
}
