"""A small project and a model's reply for the review page's tests (API and browser)."""

from __future__ import annotations

from pathlib import Path

from .helpers import sr, write_tree

CART = '''"""A tiny shopping cart."""


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price, quantity=1):
        self.items.append((name, price, quantity))

    def total(self):
        total = 0
        for name, price, quantity in self.items:
            total += price * quantity
        return total


def format_price(amount):
    return "$%.2f" % amount
'''

README = "# shop\n\nA tiny shopping cart used by the editblocks demo.\n"

PROJECT = {"shop/cart.py": CART, "README.md": README, "notes.txt": "keep me\n"}

TOTAL_BLOCK = sr(
    "shop/cart.py",
    "    def total(self):\n        total = 0\n        for name, price, quantity in self.items:\n"
    "            total += price * quantity\n        return total\n",
    "    def total(self, discount=0.0):\n        total = 0\n        for name, price, quantity in self.items:\n"
    "            total += price * quantity\n        return round(total * (1 - discount), 2)\n",
)
PRICE_BLOCK = sr(
    "shop/cart.py",
    'def format_price(amount):\n    return "$%.2f" % amount\n',
    'def format_price(amount, currency="$"):\n    return f"{currency}{amount:.2f}"\n',
)
TEST_BLOCK = sr(
    "tests/test_cart.py",
    "",
    "from shop.cart import Cart\n\n\ndef test_discount():\n    cart = Cart()\n"
    '    cart.add("tea", 4.0, quantity=2)\n    assert cart.total(discount=0.25) == 6.0\n',
)
STALE_README_BLOCK = sr(
    "README.md",
    "A small shopping cart used by the demo.\n",
    "A tiny shopping cart with discounts, used by the editblocks demo.\n",
)
FIXED_README_BLOCK = sr(
    "README.md",
    "A tiny shopping cart used by the editblocks demo.\n",
    "A tiny shopping cart with discounts, used by the editblocks demo.\n",
)

REPLY = (
    "I'll add a discount to the cart, a currency to prices, and a test.\n\n"
    + TOTAL_BLOCK
    + "\n"
    + PRICE_BLOCK
    + "\n"
    + TEST_BLOCK
    + "\n"
    + STALE_README_BLOCK
    + "\nThen remove the old module:\n\n```bash\ngit rm shop/old_cart.py\n```\n"
)

SCRIPT_REPLY = (
    'Here is <script>window.__pwned = 1</script> and <img src=x onerror="window.__pwned = 2">.\n\n'
    + sr(
        "shop/cart.py",
        'def format_price(amount):\n    return "$%.2f" % amount\n',
        'def format_price(amount):\n    return "<script>window.__pwned = 3</script>"  # <b>bold</b>\n',
    )
    + "\n"
    + sr("README.md", "<script>window.__pwned = 4</script>\n", '<img src=x onerror="window.__pwned = 5">\n')
)


def make_project(root: Path) -> None:
    write_tree(root, PROJECT)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` except editblocks' own state folder."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".editblocks" not in p.relative_to(root).parts
    }


LAZY_SKETCH = """# ... existing code ...
class Cart:
    def __init__(self):
        self.items = []
        self.discount = 0.0

    def add(self, name, price, quantity=1):
# ... existing code ...
    def total(self):
        total = 0
        for name, price, quantity in self.items:
            total += price * quantity
        return round(total * (1 - self.discount), 2)


def format_price(amount):
# ... existing code ...
"""
LAZY_REPLY = f"shop/cart.py\n```python\n{LAZY_SKETCH}```\n"
"""A lazy sketch of ``shop/cart.py`` (``--format lazy``): two runs between three elisions."""
LAZY_PARTS = [
    # kind, sketch lines, file lines
    ("elision", 1, 1, 1, 3),
    ("run", 2, 7, 4, 8),
    ("elision", 8, 8, 9, 10),
    ("run", 9, 16, 11, 18),
    ("elision", 17, 17, 19, 19),
]
"""Where each part of :data:`LAZY_SKETCH` goes in :data:`CART`."""
