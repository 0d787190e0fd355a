def report(value):
    missing(value)  # fault:D
    print(value)  # fixed:D
