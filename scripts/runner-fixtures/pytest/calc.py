def add(a, b):
    return a + b


def multiply(a, b):
    return a * b


def format_total(values):
    return f"total: {sum(values)}"
