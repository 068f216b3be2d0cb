def check(entry, dest):
    if entry.is_link():
        if os.path.isabs(entry.target):
            raise AbsoluteTargetError(entry)
        if entry.is_symlink():
            target = os.path.join(dest, entry.target)
    return entry
