def slug(text):
    return text.strip().lower().replace(" ", "-")
