// The simulator's answer to the guard's read (issue 39): the loop's diff since its start, which in
// the simulated work tree changes src/a.ts's code and weakens no check (so a claim the checks allow
// still completes, as the fuzzer's oracle expects). The effect itself is in every claim's event order.
import type { GuardRead } from "../../src/changes/guard-read.js"

export function simGuardRead(workTree: number): GuardRead {
  const diff =
    workTree > 0
      ? `diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-export const a = 0\n+export const a = ${workTree}\n`
      : ""
  return { diff, texts: new Map(), packageJson: undefined }
}
