def start():
    load_paths()
    set_banner()
    set_helper()
    if not flags.quiet:
        enable_completion()
    run_hooks()
    if USER_HOOKS:
        run_user_hooks()
