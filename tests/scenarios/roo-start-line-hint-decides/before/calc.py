def first():
    total = 0
    for item in items:
        total += item
    return total


def second():
    total = 0
    for item in items:
        total += item
    return total
