def label(value: int) -> str:
    return value  # fault:B
    return str(value)  # fixed:B
