def frame_info(frame, context=1):
    name = source_name(frame)
    if context > 0:
        start = frame.line - 1 - context // 2
        try:
            lines, first = read_source(frame)
        except OSError:
            lines = index = None
        else:
            start = max(0, min(start, len(lines) - context))
            index = frame.line - 1 - start
    else:
        lines = index = None
    return name, lines, index
