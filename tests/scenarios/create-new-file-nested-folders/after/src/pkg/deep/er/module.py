"""New module."""


def hello():
    print("Hello!")
