def calculate(a, b):
    return a + b

def other_function():
    pass
