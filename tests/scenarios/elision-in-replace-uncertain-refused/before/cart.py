class Cart:
    def __init__(self):
        self.items = []
        self.discount = 0
        self.currency = 'EUR'
        self.owner = None

    def add(self, item):
        self.items.append(item)
