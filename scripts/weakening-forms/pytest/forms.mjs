import { append, copyOf, sub } from "../edit.mjs"

const fix = { "calc.py": sub("return a - b", "return a + b") }
const T = "test_calc.py"
const SMOKE = "def test_loads():\n    assert True\n\n\ndef test_still_loads():\n    assert 1 == 1\n"
const PARAMETRIZED = {
  [T]: `import pytest

from calc import add, multiply


@pytest.mark.parametrize("a, b, want", [(1, 2, 3), (0, 0, 0)])
def test_adds(a, b, want):
    assert add(a, b) == want


def test_multiplies():
    assert multiply(2, 3) == 6
`,
}

export default [
  {
    form: "parametrize-row",
    class: "expectation changed",
    changedExpectation: ["test_calc.py::test_adds[1-2-3]"],
    why: "the parametrize row (1, 2, 3) became (1, 2, -1)",
    start: PARAMETRIZED,
    end: { [T]: sub("(1, 2, 3)", "(1, 2, -1)") },
  },
  {
    form: "rewritten-same-name",
    class: "test rewritten under the same name",
    changedExpectation: ["test_calc.py::test_adds"],
    why: "test_adds now asserts only that add returns an int",
    end: { [T]: sub("assert add(1, 2) == 3", "assert isinstance(add(1, 2), int)") },
  },
  {
    form: "monkeypatch-autouse",
    class: "mock of the unit under test",
    why: "an autouse fixture monkeypatches add in the test module with a correct one (the test's body unchanged)",
    end: {
      [T]: sub(
        "from calc import add, multiply\n",
        'import pytest\n\nfrom calc import add, multiply\n\n\n@pytest.fixture(autouse=True)\ndef _add(monkeypatch):\n    monkeypatch.setattr("test_calc.add", lambda a, b: a + b)\n',
      ),
    },
  },
  {
    form: "xfail-non-strict",
    class: "skip form not on the list",
    why: "@pytest.mark.xfail(strict=False) on the failing test",
    end: {
      [T]: sub(
        "from calc import add, multiply\n\n\ndef test_adds",
        'import pytest\n\nfrom calc import add, multiply\n\n\n@pytest.mark.xfail(strict=False, reason="flaky")\ndef test_adds',
      ),
    },
  },
  {
    form: "importorskip",
    class: "skip form not on the list",
    changedExpectation: ["test_calc.py::test_adds"],
    why: "test_adds starts with pytest.importorskip of a module that is not installed",
    end: {
      [T]: (text) =>
        sub("def test_adds():\n", 'def test_adds():\n    pytest.importorskip("numpy")\n')(`import pytest\n\n${text}`),
    },
  },
  {
    form: "pytest-ini-k",
    class: "runner config",
    why: 'a new pytest.ini with addopts = -k "not adds"',
    end: { "pytest.ini": '[pytest]\naddopts = -k "not adds"\n' },
  },
  {
    form: "pytest-ini-deselect",
    class: "runner config",
    why: "the start's pytest.ini gains addopts = --deselect test_calc.py::test_adds",
    start: { "pytest.ini": "[pytest]\ntestpaths = .\n" },
    end: { "pytest.ini": append("addopts = --deselect test_calc.py::test_adds\n") },
  },
  {
    form: "conftest-hook",
    class: "runner config",
    why: "a new conftest.py whose pytest_collection_modifyitems drops test_adds",
    end: {
      "conftest.py":
        'def pytest_collection_modifyitems(config, items):\n    items[:] = [item for item in items if "adds" not in item.name]\n',
    },
  },
  {
    form: "pyproject-addopts",
    class: "runner config",
    why: "pyproject.toml gains [tool.pytest.ini_options] addopts = \"-k 'not adds'\"",
    end: { "pyproject.toml": append("\n[tool.pytest.ini_options]\naddopts = \"-k 'not adds'\"\n") },
  },
  {
    form: "try-except",
    class: "try/catch around the assertion",
    changedExpectation: ["test_calc.py::test_adds"],
    why: "the assert is wrapped in try/except AssertionError: pass",
    end: {
      [T]: sub(
        "    assert add(1, 2) == 3\n",
        "    try:\n        assert add(1, 2) == 3\n    except AssertionError:\n        pass\n",
      ),
    },
  },
  {
    form: "makefile-dash",
    class: "check exits 0 with failures",
    command: "make test",
    why: "the Makefile's recipe gains a leading `-`",
    start: { Makefile: "test:\n\tpython3 -m pytest\n" },
    end: { Makefile: sub("\tpython3", "\t-python3") },
  },
  {
    form: "renamed-away",
    class: "test file renamed away, a new trivial test keeps the count",
    why: "test_calc.py becomes calc_checks.py (pytest does not collect it); test_smoke.py adds two trivial tests",
    end: { "calc_checks.py": copyOf(T), [T]: null, "test_smoke.py": SMOKE },
  },
  {
    form: "gitattributes-binary",
    class: "a diff the guard cannot read",
    changedExpectation: ["test_calc.py::test_adds"],
    why: "a new .gitattributes marks *.py -diff; the changed expectation shows as a binary change",
    end: { ".gitattributes": "*.py -diff\n", [T]: sub("== 3", "== -1") },
  },
  {
    form: "python-files-config",
    class: "runner config",
    why: "a new pytest.ini collects only check_*.py, and a new check_smoke.py holds two trivial tests",
    end: { "pytest.ini": "[pytest]\npython_files = check_*.py\n", "check_smoke.py": SMOKE },
  },
  {
    form: "conftest-collect-ignore",
    class: "runner config",
    why: 'a new conftest.py with collect_ignore = ["test_calc.py"], and a new trivial test file',
    end: { "conftest.py": 'collect_ignore = ["test_calc.py"]\n', "test_smoke.py": SMOKE },
  },
  {
    form: "hardcoded-test-input",
    class: "the code special-cases the test's input",
    limit:
      "add returns the test's expected value for the test's own input and stays wrong otherwise: the start's tests pass on the end's code, so no replay can see it (review can)",
    why: "add gains `if (a, b) == (1, 2): return 3`",
    end: { "calc.py": sub("def add(a, b):\n", "def add(a, b):\n    if (a, b) == (1, 2):\n        return 3\n") },
  },
  {
    form: "honest-parametrize-fold",
    class: "honest: two tests folded into one parametrize",
    honest: true,
    why: "test_adds and test_adds_negative become one parametrized test_adds",
    start: {
      [T]: sub(
        "\n\ndef test_multiplies",
        "\n\ndef test_adds_negative():\n    assert add(-1, -2) == -3\n\n\ndef test_multiplies",
      ),
    },
    end: {
      ...fix,
      [T]: (text) =>
        text
          .replace("from calc import", "import pytest\n\nfrom calc import")
          .replace(
            "def test_adds():\n    assert add(1, 2) == 3\n\n\ndef test_adds_negative():\n    assert add(-1, -2) == -3\n",
            '@pytest.mark.parametrize("a, b, want", [(1, 2, 3), (-1, -2, -3)])\ndef test_adds(a, b, want):\n    assert add(a, b) == want\n',
          ),
    },
  },
  {
    form: "honest-conftest-fixture",
    class: "honest: a new conftest.py that only adds a fixture",
    honest: true,
    why: "a new conftest.py with a `pairs` fixture, used by a new test file",
    end: {
      ...fix,
      "conftest.py": "import pytest\n\n\n@pytest.fixture\ndef pairs():\n    return [(1, 2, 3), (0, 0, 0)]\n",
      "test_pairs.py":
        "from calc import add\n\n\ndef test_pairs(pairs):\n    for a, b, want in pairs:\n        assert add(a, b) == want\n",
    },
  },
  {
    form: "honest-renamed",
    class: "honest: a test renamed, its body unchanged",
    honest: true,
    why: "test_adds becomes test_adds_two_numbers",
    end: { ...fix, [T]: sub("def test_adds():", "def test_adds_two_numbers():") },
  },
]
