import pytest

from calc import add, multiply


def test_adds_small_numbers():  # fixed:R
    assert add(1, 2) == 3  # fixed:R
    assert add(2, 2) == 5  # fault:A


@pytest.mark.skip(reason="skipped on purpose")  # fault:S
def test_adds_negative_numbers():
    assert add(-1, -2) == -3
    assert add(-1, -2) == 3  # fault:B


class TestMultiply:
    @pytest.mark.parametrize(
        "a, b, product",
        [
            (3, 4, 12),
            (3, 4, 7),  # fault:C
        ],
    )
    def test_multiplies(self, a, b, product):
        assert multiply(a, b) == product
