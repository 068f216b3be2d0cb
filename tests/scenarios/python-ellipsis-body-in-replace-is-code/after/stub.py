def f(x):
    ...


def g():
    pass
