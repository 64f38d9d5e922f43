import shop.util.text
from shop import Order, make_slug
from shop.models.order import LineItem as Item


def main(argv=None):
    order = Order()
    order.add(Item("a", 1.0))
    print(make_slug("Hello World"))
    return shop.util.text.normalize(order.checkout())


main()
