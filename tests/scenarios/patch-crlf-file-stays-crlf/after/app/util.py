def slug(text):
    text = text.strip()
    return text.lower().replace(" ", "-")
