from calc import add


def add_typed(a: int, b: int) -> int:
    return add(a, b)


total = add_typed(1, 2, 3)  # fault:C
total = add_typed(1, 2)  # fixed:C
