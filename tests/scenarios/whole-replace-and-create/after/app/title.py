def title(text):
    return text.title()
