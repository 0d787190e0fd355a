import unittest

from calc import add, multiply


class CalcTest(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(1, 2), 3)

    def test_multiplies(self):
        self.assertEqual(multiply(2, 3), 6)


if __name__ == "__main__":
    unittest.main()
