def broken(:  # fault:E
def broken():  # fixed:E
    pass


def fine():
    pass
