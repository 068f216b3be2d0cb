NEW = True
