"""``python -m editblocks``: the same as the ``editblocks`` command."""

from editblocks.cli import main

if __name__ == "__main__":
    main()
