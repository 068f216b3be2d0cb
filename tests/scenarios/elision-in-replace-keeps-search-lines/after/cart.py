class Cart:
    def __init__(self, owner=None):
        self.items = []
        self.discount = 0
        self.currency = 'EUR'
        self.owner = owner

    def add(self, item):
        self.items.append(item)
