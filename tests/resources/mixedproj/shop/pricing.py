"""Prices and discounts."""

RATE = 0.2


def with_tax(amount):
    return round(amount * (1 + RATE), 2)


class Discount:
    def __init__(self, percent):
        self.percent = percent

    def apply(self, amount):
        return with_tax(amount) * (1 - self.percent / 100)
