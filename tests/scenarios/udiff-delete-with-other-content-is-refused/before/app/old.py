"""Kept for old callers."""


def legacy():
    return None


def still_used():
    return 1
