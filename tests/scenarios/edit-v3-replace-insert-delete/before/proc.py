def process():
    step_one()
    step_two()
    step_three()


def cleanup():
    remove_temp()
    close_handles()
