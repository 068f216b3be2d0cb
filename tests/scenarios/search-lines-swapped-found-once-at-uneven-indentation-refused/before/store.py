def save(data, name):
    fd = open_temp(name)
    try:
        try:
            write_all(fd, data)
        finally:
            close(fd)
    finally:
        remove(name)
