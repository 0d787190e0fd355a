// What a claim of done meets from the guard (issue 39), pure: the findings that refuse it under the
// loop's `guard` mode, and the words the next prompt gives the model — each finding named precisely
// (file, test, script, before and after) with the key a user accepts it by.
import type { GuardMode } from "../config/guard-setting.js"
import { findingKey, findingText } from "./finding.js"
import { stands, type Weakened } from "./record.js"

/** The findings that refuse a claim: standing ones (refusing, not accepted), in `refuse` mode only. */
export const refusingFindings = (mode: GuardMode, weakened: readonly Weakened[] | undefined): Weakened[] =>
  mode === "refuse" && weakened ? weakened.filter(stands) : []

/** The first line of a refusal: the next prompt's opening tells a refusal from failing checks by it. */
export const REFUSED =
  "The completion claim was refused: since the loop began, your changes weaken the checks that verify the task:"

/** The next prompt's account of a refused claim. */
export function refusalFeedback(findings: readonly Weakened[]): string[] {
  if (findings.length === 0) return []
  return [
    REFUSED,
    ...findings.map((f) => `- ${findingText(f)} [finding ${findingKey(f)}]`),
    "Restore each of these (un-skip or put back the test, restore the script or the config, remove the suppression)" +
      " and fix the code instead, then claim again. If a change is right, say why in your reply: the user can accept" +
      " that finding by its key (guard.accept in .opencode/ralph-loop.jsonc).",
  ]
}
