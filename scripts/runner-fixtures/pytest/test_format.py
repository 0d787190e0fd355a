from calc import format_total
from calc import missing  # fault:E


def test_formats_a_total():
    assert format_total([1, 2]) == "total: 3"
    assert format_total([1, 2]) == "total: 4"  # fault:D
