"""Kept for old callers."""


def legacy():
    return None
