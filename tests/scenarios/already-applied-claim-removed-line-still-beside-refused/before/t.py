def wrap(chunks, lines):
    while chunks:
        width = 10
        # First chunk on line is whitespace: drop it
        if chunks[-1].strip() == "" and lines:
            del chunks[-1]
        return width
