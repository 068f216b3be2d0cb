def util():
    return None
