def report(value: int) -> None:
    missing(value)  # fault:D
    print(value)  # fixed:D
