from shop.models.order import Order, LineItem


def test_checkout():
    order = Order()
    order.add(LineItem("x", 2.0))
    assert order.checkout()
