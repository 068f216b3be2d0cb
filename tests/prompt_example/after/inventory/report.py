def describe(item):
    return f"{item.name}: {item.quantity}"
