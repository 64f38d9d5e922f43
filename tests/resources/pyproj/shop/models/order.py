from dataclasses import dataclass

from .base import Model
from ..util import text as txt

TAX_RATE = 0.2


class LineItem:
    def __init__(self, sku: str, price: float) -> None:
        self.sku = sku
        self.price = price

    def total(self) -> float:
        return self.price * (1 + TAX_RATE)


class Order(Model):
    def add(self, item: LineItem) -> None:
        if item.price < 0:
            raise ValueError("negative price")
        self.items.append(item)

    def checkout(self) -> str:
        self.save()
        return txt.slugify(self.reference())

    def reference(self):
        return unknown_helper(self)
