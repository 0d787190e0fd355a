// The simulator's answer to the guard's read (issue 39): the loop's diff since its start, which in
// the simulated work tree changes src/a.ts's code. In a run whose config says it `weakens` (drawn
// by fast-check), on the work trees whose edit count the run's actions brought to 2 modulo 3, the
// diff also skips a test that ran at the start, so the guard finds it and the claim is refused like
// a failing check; the next edit undoes it (the model restored the test), and a claim the checks
// allow then completes. The effect itself is in every claim's event order.
import type { GuardRead } from "../../src/changes/guard-read.js"

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
