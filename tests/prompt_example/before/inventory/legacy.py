"""Old stock helpers, no longer used."""


def count(items):
    return len(items)
