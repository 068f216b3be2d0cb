def flush(stream):
    stream.write("\n")
    stream.write("\n")
    return stream
