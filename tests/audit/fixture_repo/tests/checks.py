from pkg.store import helper


def check_helper():
    return helper(11)
