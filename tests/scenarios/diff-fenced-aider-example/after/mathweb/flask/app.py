import math
from flask import Flask

app = Flask(__name__)




@app.route("/fact/<int:n>")
def get_factorial(n):
    return str(math.factorial(n))
