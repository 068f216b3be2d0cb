import os

def existing():
    pass

def another():
    pass

def main():
    deprecated_call()
    important_call()
    return final_value
