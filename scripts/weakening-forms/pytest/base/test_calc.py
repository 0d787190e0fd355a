from calc import add, multiply


def test_adds():
    assert add(1, 2) == 3


def test_multiplies():
    assert multiply(2, 3) == 6
