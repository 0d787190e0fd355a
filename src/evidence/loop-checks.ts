// The loop's own checks (issue 39): the checks a loop runs are those its settings gave when it
// began (the loop keeps them); a claim of done is refused when the settings now — the file
// `.opencode/ralph-loop.jsonc` the model can edit — drop one of them or change what it runs. A
// check added is no weakening. Pure.
import type { Finding } from "./finding.js"

const LOOP_SETTINGS_FILE = ".opencode/ralph-loop.jsonc"

interface NamedCheck {
  name: string
  command: string
}

/**
 * Findings for each check of the loop's start whose command changed, or that is gone, in the settings now.
 * `now` undefined: the settings now define no check and leave them to auto-detection, which this does not judge.
 */
export function changedLoopChecks(start: readonly NamedCheck[], now: readonly NamedCheck[] | undefined): Finding[] {
  if (now === undefined) return []
  const findings: Finding[] = []
  for (const check of start) {
    const after = now.find((c) => c.name === check.name)
    if (after?.command === check.command) continue
    findings.push({
      kind: "check-config",
      file: LOOP_SETTINGS_FILE,
      name: `check ${check.name}`,
      before: check.command,
      after: after ? after.command : null,
    })
  }
  return findings
}
