from flask import Flask

app = Flask(__name__)


def factorial(n):
    "compute factorial"

    if n == 0:
        return 1
    else:
        return n * factorial(n-1)


@app.route("/fact/<int:n>")
def get_factorial(n):
    return str(factorial(n))
