require_relative "shop/order"
require_relative "shop/pricing"

# Entry points of the shop.
module Shop
  VERSION = "1.0.0"

  def self.checkout(id, amount)
    order = Order.build(id)
    order.add(amount)
    order.save
    order
  end
end
