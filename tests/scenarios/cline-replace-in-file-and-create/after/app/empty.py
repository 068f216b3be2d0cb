EMPTY = True
