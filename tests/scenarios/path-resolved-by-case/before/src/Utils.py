def util():
    pass
