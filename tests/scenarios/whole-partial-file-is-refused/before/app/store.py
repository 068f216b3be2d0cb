import json


class Store:
    def __init__(self, path):
        self.path = path
        self.items = {}

    def load(self):
        with open(self.path) as fh:
            self.items = json.load(fh)
        return self.items

    def save(self):
        with open(self.path, "w") as fh:
            json.dump(self.items, fh)
        return self.items
