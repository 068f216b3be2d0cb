"""A tiny shopping cart."""


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price, quantity=1):
        self.items.append((name, price, quantity))

    def total(self):
        total = 0
        for name, price, quantity in self.items:
            total += price * quantity
        return total


def format_price(amount):
    return "$%.2f" % amount
