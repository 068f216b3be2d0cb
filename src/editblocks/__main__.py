"""``python -m editblocks``: the same as the ``editblocks`` command."""

from .cli import main

if __name__ == "__main__":
    main()
