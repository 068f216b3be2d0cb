_closing = re.compile(r"]\s*>")

del re


class MarkupReader:
    """Reads markup."""

    def reset(self):
        pass
