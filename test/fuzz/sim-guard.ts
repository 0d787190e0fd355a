// The simulator's answer to the guard's read (issue 39): the loop's diff since its start, which in
// the simulated work tree changes src/a.ts's code. In a run whose config says it `weakens` (drawn
// by fast-check), on the work trees whose edit count the run's actions brought to 2 modulo 3, the
// diff also skips a test that ran at the start, so the guard finds it and the claim is refused like
// a failing check; the next edit undoes it (the model restored the test), and a claim the checks
// allow then completes. The effect itself is in every claim's event order.
import type { GuardRead } from "../../src/changes/guard-read.js"
import type { Replay } from "../../src/evidence/replay-record.js"

/** Whether the simulated work tree `workTree` holds a skipped test (the guard's refusal path). */
const simWeakens = (workTree: number): boolean => workTree % 3 === 2

const SKIPPED =
  "diff --git a/src/a.test.ts b/src/a.test.ts\n--- a/src/a.test.ts\n+++ b/src/a.test.ts\n@@ -1 +1 @@\n" +
  '-test("a", () => {})\n+test.skip("a", () => {})\n'

export function simGuardRead(workTree: number, weakens: boolean): GuardRead {
  const code =
    workTree > 0
      ? `diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 0\n+export const a = ${workTree}\n`
      : ""
  return { diff: code + (weakens && simWeakens(workTree) ? SKIPPED : ""), texts: new Map(), packageJson: undefined }
}

/**
 * The simulator's replay (issue 46): where the model's edit skipped a test, the start's test put back
 * fails on the replay tree (the claim is refused); elsewhere the loop changed no test, so the replay
 * is not needed. The effect itself is in the event order of every claim whose checks passed.
 */
export function simReplay(workTree: number, weakens: boolean): Replay {
  if (!(weakens && simWeakens(workTree))) return { status: "not-needed" }
  const check = {
    name: "unit",
    command: "npm test",
    exitCode: 1,
    passed: false,
    tests: { passed: 0, failed: 1, skipped: 0 },
    failures: ["src/a.test.ts > a"],
    outputSha256: "",
  }
  const ran = { tree: "sim-replay", putBack: ["src/a.test.ts"], leftOut: [], merged: [], ignored: [] }
  return { status: "ran", ...ran, checks: [check], expectations: [] }
}
