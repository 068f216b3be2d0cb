def columns(words, width):
    for rows in range(1, len(words) + 1):
        total = 0
        for col in range(rows):
            total += len(words[col]) + 2
            if total > width:
                break
        if total <= width:
            break
    else:
        rows = len(words)
    return rows
