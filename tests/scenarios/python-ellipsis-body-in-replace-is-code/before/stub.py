def f(x):
    y = x + 1
    return y


def g():
    pass
