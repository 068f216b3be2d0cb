from dataclasses import dataclass


@dataclass
class Item:
    name: str
    quantity: int


def restock(item, amount):
    item.quantity += amount
    return item


def sell(item, amount):
    if amount > item.quantity:
        raise ValueError("not enough stock")
    item.quantity -= amount
    return item


def describe(item):
    return f"{item.name}: {item.quantity}"
