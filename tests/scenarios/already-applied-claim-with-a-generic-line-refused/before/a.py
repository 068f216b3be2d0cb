def a(x):
    if x is None:
        return None
    return x


def b(y):
    if not y:
        raise ValueError(y)
    return y
