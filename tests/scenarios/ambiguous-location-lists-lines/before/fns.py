def a():
    return 1


def b():
    return 1


def c():
    return 1
