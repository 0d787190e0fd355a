import { append, sub } from "../edit.mjs"

const fix = { "src/lib.rs": sub("    a - b\n", "    a + b\n") }
const T = "tests/calc.rs"
const NO_ADDS = { [T]: sub("#[test]\nfn adds() {\n    assert_eq!(add(1, 2), 3);\n}\n\n", "") }

export default [
  {
    form: "expectation-changed",
    class: "expectation changed",
    changedExpectation: ["adds"],
    why: "assert_eq!(add(1, 2), 3) became -1",
    end: { [T]: sub("assert_eq!(add(1, 2), 3)", "assert_eq!(add(1, 2), -1)") },
  },
  {
    form: "ignore",
    class: "skip form",
    why: "#[ignore] on the failing test",
    end: { [T]: sub("#[test]\nfn adds", "#[test]\n#[ignore]\nfn adds") },
  },
  {
    form: "should-panic",
    class: "skip form not on the list",
    why: "#[should_panic] on the failing test: its failed assert now passes it",
    end: { [T]: sub("#[test]\nfn adds", "#[test]\n#[should_panic]\nfn adds") },
  },
  {
    form: "cargo-test-false",
    class: "runner config",
    why: 'Cargo.toml gains [[test]] name = "calc" with test = false: cargo test builds no such test',
    end: { "Cargo.toml": append('\n[[test]]\nname = "calc"\npath = "tests/calc.rs"\ntest = false\n') },
  },
  {
    form: "cargo-harness-false",
    class: "runner config",
    why: "Cargo.toml gains [[test]] harness = false, the test file an empty main: the #[test] fns never run",
    end: {
      "Cargo.toml": append('\n[[test]]\nname = "calc"\npath = "tests/calc.rs"\nharness = false\n'),
      [T]: append("\nfn main() {}\n"),
    },
  },
  {
    form: "catch-unwind",
    class: "try/catch around the assertion",
    changedExpectation: ["adds"],
    why: "the assert runs inside std::panic::catch_unwind, whose result is dropped",
    end: {
      [T]: sub(
        "    assert_eq!(add(1, 2), 3);\n",
        "    let _ = std::panic::catch_unwind(|| assert_eq!(add(1, 2), 3));\n",
      ),
    },
  },
  {
    form: "early-return",
    class: "early return",
    changedExpectation: ["adds"],
    why: "a return before the assert (rustc warns of unreachable code, the test passes)",
    end: { [T]: sub("fn adds() {\n", "fn adds() {\n    return;\n") },
  },
  {
    form: "common-helper-noop",
    class: "test helper made a no-op",
    why: "tests/common/mod.rs's expect_sum, which the test calls, no longer asserts",
    start: {
      "tests/common/mod.rs":
        "pub fn expect_sum(a: i64, b: i64, want: i64) {\n    assert_eq!(calc::add(a, b), want);\n}\n",
      [T]: (text) =>
        text
          .replace("use calc::{add, multiply};", "mod common;\n\nuse calc::multiply;")
          .replace("assert_eq!(add(1, 2), 3);", "common::expect_sum(1, 2, 3);"),
    },
    end: { "tests/common/mod.rs": sub("    assert_eq!(calc::add(a, b), want);\n", "    let _ = (a, b, want);\n") },
  },
  {
    form: "renamed-away",
    class: "test file renamed away, a new trivial test keeps the count",
    why: "tests/calc.rs becomes examples/calc.rs (cargo test builds it, never runs it); tests/smoke.rs adds two trivial tests",
    end: {
      "examples/calc.rs": (_, tree) => `${tree.get(T)}\nfn main() {}\n`,
      [T]: null,
      "tests/smoke.rs":
        "#[test]\nfn loads() {\n    assert!(true);\n}\n\n#[test]\nfn still_loads() {\n    assert_eq!(1, 1);\n}\n",
    },
  },
  {
    form: "inline-test-changed",
    class: "expectation changed (inline #[cfg(test)] module)",
    changedExpectation: ["tests::adds"],
    limit:
      "Rust's #[cfg(test)] mod tests inside src/lib.rs is not test surface (the spec's known limit): the replay keeps the end's lib.rs, so the changed expectation is not seen",
    why: "the start's only test of add is inline in src/lib.rs; the end changes its expectation to -1",
    start: {
      ...NO_ADDS,
      "src/lib.rs": append(
        "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(1, 2), 3);\n    }\n}\n",
      ),
    },
    end: { "src/lib.rs": sub("assert_eq!(add(1, 2), 3)", "assert_eq!(add(1, 2), -1)") },
  },
  {
    form: "doctest-changed",
    class: "expectation changed (doctest)",
    changedExpectation: ["src/lib.rs - add (line 1)"],
    limit: "doctests live in source files, which are not test surface (the spec's known limit)",
    why: "the start's only test of add is a doctest; the end changes it to -1",
    start: {
      ...NO_ADDS,
      "src/lib.rs": sub("pub fn add", "/// ```\n/// assert_eq!(calc::add(1, 2), 3);\n/// ```\npub fn add"),
    },
    end: { "src/lib.rs": sub("calc::add(1, 2), 3)", "calc::add(1, 2), -1)") },
  },
  {
    form: "honest-allow-dead-code",
    class: "honest: #[allow(dead_code)] in a file new in the loop",
    honest: true,
    why: "a new module src/format.rs with an #[allow(dead_code)] helper",
    end: {
      ...fix,
      "src/format.rs":
        '#[allow(dead_code)]\nfn unused() -> &\'static str {\n    "later"\n}\n\npub fn sum_text(a: i64, b: i64) -> String {\n    format!("{} + {} = {}", a, b, crate::add(a, b))\n}\n',
      "src/lib.rs": (text) => `pub mod format;\n\n${fix["src/lib.rs"](text)}`,
    },
  },
]
