require "minitest/autorun"
require_relative "../lib/shop"

class OrderTest < Minitest::Test
  def test_total
    order = Shop::Order.build("o-1")
    order.add(10)
    assert_equal 12.0, order.total
  end
end
