def is_missing(value):
    result = value is None  # fault:B
    return value is None
