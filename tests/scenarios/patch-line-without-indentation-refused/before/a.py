class A:
    def __init__(self, a, b):
        # set fields
        self.a = a
        self.b = b
