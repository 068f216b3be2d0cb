"""Short descriptions of catalogue items."""


def describe(item, suffix=None):
    if item.alias:
        text = item.alias
    else:
        text = repr(item)

    text += _format_tags(item.tags, item.extra)
    if suffix:
        text += suffix
    return text


def _format_tags(tags, extra):
    return " [" + ", ".join(sorted(tags)) + "]" if tags else ""
