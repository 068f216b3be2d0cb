class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price, quantity=1):
        self.items.append((name, price * quantity))

    def total(self):
        return sum(price for _, price in self.items)
