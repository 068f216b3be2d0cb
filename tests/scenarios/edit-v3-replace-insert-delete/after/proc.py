def process():
    step_one()
    step_two_updated()
    step_three()
    step_four()


def cleanup():
    close_handles()
