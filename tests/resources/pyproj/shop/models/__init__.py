from .order import Order, LineItem
