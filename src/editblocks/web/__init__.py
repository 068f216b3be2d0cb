"""The review page: ``editblocks serve`` and ``editblocks apply --review``.

Needs the ``web`` extra (``pip install 'editblocks[web]'``: Starlette, uvicorn, Pygments).
"""

from __future__ import annotations

MISSING_EXTRA = "the review page needs the web extra: pip install 'editblocks[web]' (Starlette, uvicorn and Pygments)"


def missing_dependency() -> str | None:
    """None when the web extra is installed, else the message saying how to install it."""
    import importlib.util

    for module in ("starlette", "uvicorn", "pygments"):
        if importlib.util.find_spec(module) is None:
            return f"{MISSING_EXTRA}; {module} is not installed"
    return None


def create_app(*args, **kwargs):  # type: ignore[no-untyped-def]
    """:func:`editblocks.web.app.create_app` (imported on first use)."""
    from editblocks.web.app import create_app as _create_app

    return _create_app(*args, **kwargs)


__all__ = ["MISSING_EXTRA", "create_app", "missing_dependency"]
