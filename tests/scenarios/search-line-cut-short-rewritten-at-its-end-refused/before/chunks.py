def join(chunks, components):
    append = components.append
    for chunk in chunks:
        if len(chunks) == 1:
            return chunk
        append(chunk)
    return components
