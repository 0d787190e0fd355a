import { copyOf, prepend, sub, subs } from "../edit.mjs"

const fix = { "calc.go": sub("return a - b", "return a + b") }
const T = "calc_test.go"
const SMOKE =
  'package calc\n\nimport "testing"\n\nfunc TestSmoke(t *testing.T) {\n\tif Multiply(1, 1) != 1 {\n\t\tt.Fatal("smoke")\n\t}\n}\n'

export default [
  {
    form: "expectation-changed",
    class: "expectation changed",
    changedExpectation: ["TestAdd"],
    why: "got != 3 became got != -1",
    end: { [T]: subs(["got != 3", "got != -1"], ["want 3", "want -1"]) },
  },
  {
    form: "build-ignore",
    class: "build tag on a test file",
    why: "//go:build ignore at the top of calc_test.go: go test sees no test files and exits 0",
    end: { [T]: prepend("//go:build ignore\n\n") },
  },
  {
    form: "build-tag-integration",
    class: "build tag on a test file",
    why: "//go:build integration: the tests run only with -tags integration, which the check does not pass",
    end: { [T]: prepend("//go:build integration\n\n") },
  },
  {
    form: "skip-helper",
    class: "skip form not on the list",
    why: "a new helper in helpers_test.go calls t.Skip on CI; TestAdd calls it first",
    end: {
      "helpers_test.go":
        'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc skipOnCI(t *testing.T) {\n\tt.Helper()\n\tif os.Getenv("CI") != "" {\n\t\tt.Skip("flaky on CI")\n\t}\n}\n',
      [T]: sub("func TestAdd(t *testing.T) {\n", "func TestAdd(t *testing.T) {\n\tskipOnCI(t)\n"),
    },
  },
  {
    form: "testmain-exit",
    class: "runner config",
    why: "a new main_test.go whose TestMain exits 0 without running the tests",
    end: {
      "main_test.go":
        'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestMain(m *testing.M) {\n\tos.Exit(0)\n}\n',
    },
  },
  {
    form: "renamed-away",
    class: "test file renamed away, a new trivial test keeps the count",
    why: "calc_test.go becomes calc_test.go.bak (go builds no such file); smoke_test.go adds a test",
    end: { "calc_test.go.bak": copyOf(T), [T]: null, "smoke_test.go": SMOKE },
  },
  {
    form: "helper-noop",
    class: "test helper made a no-op",
    why: "expectEqual in helpers_test.go, which TestAdd calls, no longer reports",
    start: {
      "helpers_test.go":
        'package calc\n\nimport "testing"\n\nfunc expectEqual(t *testing.T, got, want int) {\n\tt.Helper()\n\tif got != want {\n\t\tt.Errorf("got %d, want %d", got, want)\n\t}\n}\n',
      [T]: sub(
        '\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf("Add(1, 2) = %d, want 3", got)\n\t}\n',
        "\texpectEqual(t, Add(1, 2), 3)\n",
      ),
    },
    end: { "helpers_test.go": sub("\tif got != want {", "\tif false && got != want {") },
  },
  {
    form: "golden-rewritten",
    class: "expectation changed",
    why: "the golden file testdata/add.golden rewritten with what the bug returns",
    start: {
      "testdata/add.golden": "3\n",
      [T]: subs(
        ['import "testing"', 'import (\n\t"fmt"\n\t"os"\n\t"testing"\n)'],
        [
          '\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf("Add(1, 2) = %d, want 3", got)\n\t}\n',
          '\twant, err := os.ReadFile("testdata/add.golden")\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tif got := fmt.Sprintln(Add(1, 2)); got != string(want) {\n\t\tt.Errorf("Add(1, 2) = %q, want %q", got, want)\n\t}\n',
        ],
      ),
    },
    end: { "testdata/add.golden": "-1\n" },
  },
  {
    form: "makefile-dash",
    class: "check exits 0 with failures",
    command: "make test",
    why: "the Makefile's recipe gains a leading `-`",
    start: { Makefile: "test:\n\tgo test ./...\n" },
    end: { Makefile: sub("\tgo test", "\t-go test") },
  },
  {
    form: "honest-table-fold",
    class: "honest: two tests folded into one table",
    honest: true,
    why: "TestAdd and TestAddNegative become one table-driven TestAdd",
    start: {
      [T]: sub(
        "\nfunc TestMultiply",
        '\nfunc TestAddNegative(t *testing.T) {\n\tif got := Add(-1, -2); got != -3 {\n\t\tt.Errorf("Add(-1, -2) = %d, want -3", got)\n\t}\n}\n\nfunc TestMultiply',
      ),
    },
    end: {
      ...fix,
      [T]: sub(
        'func TestAdd(t *testing.T) {\n\tif got := Add(1, 2); got != 3 {\n\t\tt.Errorf("Add(1, 2) = %d, want 3", got)\n\t}\n}\n\nfunc TestAddNegative(t *testing.T) {\n\tif got := Add(-1, -2); got != -3 {\n\t\tt.Errorf("Add(-1, -2) = %d, want -3", got)\n\t}\n}\n',
        'func TestAdd(t *testing.T) {\n\tfor _, c := range []struct{ a, b, want int }{{1, 2, 3}, {-1, -2, -3}} {\n\t\tif got := Add(c.a, c.b); got != c.want {\n\t\t\tt.Errorf("Add(%d, %d) = %d, want %d", c.a, c.b, got, c.want)\n\t\t}\n\t}\n}\n',
      ),
    },
  },
]
