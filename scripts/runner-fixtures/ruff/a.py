import os  # fault:A


def total(values):
    return sum(values)
