import json


def load(path):
    with open(path) as f:
        return json.load(f)


def save(path, data):
    with open(path, "w") as f:
        json.dump(data, f)


def main():
    data = load("in.json")
    save("out.json", data)
