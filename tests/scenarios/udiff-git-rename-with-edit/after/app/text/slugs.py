def make_slug(text):
    return text.lower().replace(" ", "-")
