class A:
    def __init__(self, a, b):
        # set the fields
        self.a = a
        self.b = b
