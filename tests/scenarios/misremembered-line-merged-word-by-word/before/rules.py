def describe(cases):
    """Summarise the cases."""
    # Report the cases that are not matched by any rule.
    unmatched = [c for c in cases if not c.rule]
    return len(unmatched)
