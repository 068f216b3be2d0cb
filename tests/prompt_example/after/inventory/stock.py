from dataclasses import dataclass


@dataclass
class Item:
    name: str
    quantity: int


def restock(item, amount):
    if amount < 1:
        raise ValueError("amount must be at least 1")
    item.quantity += amount
    return item


def sell(item, amount):
    if amount > item.quantity:
        raise ValueError("not enough stock")
    item.quantity -= amount
    return item
