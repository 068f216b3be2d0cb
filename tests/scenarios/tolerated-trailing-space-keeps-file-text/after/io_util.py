def load(path):
    with open(path) as f:   
        data = f.read()
    return data.strip()
