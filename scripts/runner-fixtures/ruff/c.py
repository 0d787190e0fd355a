def is_empty(value):
    return value is ""  # fault:C
    return value == ""  # fixed:C
