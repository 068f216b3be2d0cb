"""Module docstring."""

import os

def existing():
    pass

def new_function():
    return 42

def another():
    pass

def main():
    important_call()
    return final_value

def appended_function():
    pass
