def broken(:  # fault:E
def broken() -> None:  # fixed:E
    pass


def fine() -> None:
    pass
