from pathlib import Path


def home():
    return Path.home()
