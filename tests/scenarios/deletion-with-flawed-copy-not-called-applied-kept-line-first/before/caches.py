"""Helpers for caches."""

import os as _os
import json as _json
import types as _types
from random import Random as _Random


def _cache_dir():
    return _os.path.join(_os.getcwd(), ".cache")
