def parse_options(args, flags, names=()):
    found = []
    rest = []
    if flags.startswith('+'):
        flags = flags[1:]
        stop_at_first = True
    elif os.environ.get("STRICT_ORDER"):
        stop_at_first = True
    else:
        stop_at_first = False

    while args:
        if args[0] == '--':
            rest += args[1:]
            break

        if args[0][:2] == '--':
            found, args = read_long(found, args[0][2:], names, args[1:])
        elif args[0][:1] == '-' and args[0] != '-':
            found, args = read_short(found, args[0][1:], flags, args[1:])
    return found, rest
