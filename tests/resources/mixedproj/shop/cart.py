from shop.pricing import Discount, with_tax


class Cart:
    def __init__(self):
        self.items = []

    def add(self, price):
        self.items.append(price)

    def total(self, percent=0):
        subtotal = sum(self.items)
        if percent:
            return Discount(percent).apply(subtotal)
        return with_tax(subtotal)
