// A failing check's failures as stable identities: the failing tests (file and name path) of test
// runners, the rule, file and message of linters and compilers — never their timings, counts,
// banners, line and column numbers, temporary folders or colours. The same failure gives the same
// identity however the code above it moved; the breaker's same-error count, circular-fix detection
// and the lessons compare these. Each parser knows its runner's output by its shape (whatever the
// check is called) and they all read it: a check may run several tools. An output none of them
// recognises is identified as a whole (whole-output.ts). Pure, linear in the output.
import type { CheckResult } from "../diagnostics.js"
import { cargoFailures } from "./cargo.js"
import { eslintFailures } from "./eslint.js"
import { goFailures } from "./go.js"
import { jestFailures } from "./jest.js"
import { locatedFailures } from "./located.js"
import { mochaFailures } from "./mocha.js"
import { mypyFailures } from "./mypy.js"
import { nodeTestFailures } from "./node-test.js"
import { pytestFailures } from "./pytest.js"
import { ruffFailures } from "./ruff.js"
import { bounded, hash, stripAnsi, type Parser } from "./text.js"
import { tscFailures } from "./tsc.js"
import { vitestFailures } from "./vitest.js"
import { wholeOutput } from "./whole-output.js"

const PARSERS: readonly Parser[] = [
  pytestFailures,
  vitestFailures,
  jestFailures,
  nodeTestFailures,
  mochaFailures,
  goFailures,
  cargoFailures,
  locatedFailures,
  tscFailures,
  eslintFailures,
  ruffFailures,
  mypyFailures,
]

/** At most this many identities per check: a huge output must not make a huge loop state. */
export const MAX_FAILURES = 50

const REST = "… and "

/**
 * The last identity of a check with more than MAX_FAILURES: how many more, and a hash of them (so a change among them
 * still shows).
 */
export const isRest = (identity: string): boolean => identity.startsWith(REST)

/** The sorted, distinct identities of what failed in a check's output (empty for an empty output). */
export function failureIdentities(output: string, directory?: string): string[] {
  const text = stripAnsi(output)
  const lines = text.split(/\r\n|\r|\n/)
  const found = new Set<string>()
  for (const parse of PARSERS) for (const id of parse(lines, { directory })) found.add(bounded(id))
  if (found.size === 0) {
    const whole = wholeOutput(text, directory)
    if (whole) found.add(whole)
  }
  const sorted = [...found].sort()
  if (sorted.length <= MAX_FAILURES) return sorted
  const rest = sorted.slice(MAX_FAILURES - 1)
  return [...sorted.slice(0, MAX_FAILURES - 1), `${REST}${rest.length} more #${hash(rest.join("\n"))}`]
}

/**
 * A check's failures: none when it passed; what its run kept (`failures`, from the whole output)
 * or, for a run saved before it was kept, its output read again; a check that could not finish
 * failed as its status says.
 */
export function checkFailures(check: Pick<CheckResult, "status" | "output" | "failures">): string[] {
  if (check.status === "passed") return []
  if (check.status === "timeout") return ["timed out"]
  if (check.status === "missing") return ["its command was not found"]
  if (check.status === "error") return ["could not run"]
  const found = check.failures ?? failureIdentities(check.output)
  return found.length > 0 ? found : ["failed with no output"]
}

const FILE = /^[^\s…]+\.[A-Za-z]\w{0,7}$/

/** The file a failure names first (`test/a.test.js > …`, `a.py::test_x`, `src/a.ts TS2322: …`), if any. */
export function fileOfFailure(failure: string): string | undefined {
  const ends = [failure.indexOf(" > "), failure.indexOf("::"), failure.indexOf(" ")].filter((i) => i > 0)
  const head = ends.length ? failure.slice(0, Math.min(...ends)) : failure
  return FILE.test(head) ? head : undefined
}
