def total(items):
    subtotal = sum(i.price for i in items)
    tax = subtotal * 0.2
    return subtotal + tax
