// When is the task done? `promise` (default): the promise tag. `dual` (seed 002): at least two
// turns in a row indicating completion and EXIT_SIGNAL: true. `either`: one of the two.
// A status claim never overrides an explicit EXIT_SIGNAL: false.
import type { RalphStatus } from "./status-block.js"

type ExitGate = "promise" | "dual" | "either"

export interface GateInput {
  gate: ExitGate
  promised: boolean
  status?: RalphStatus | undefined
  /** Turns in a row, this one included, that indicated completion. */
  completionStreak: number
}

export const indicatesCompletion = (promised: boolean, status: RalphStatus | undefined): boolean =>
  promised || status?.status === "COMPLETE"

export function gateOpen({ gate, promised, status, completionStreak }: GateInput): boolean {
  if (status?.exitSignal === false) return false
  const dual = completionStreak >= 2 && status?.exitSignal === true
  if (gate === "promise") return promised
  if (gate === "dual") return dual
  return promised || dual
}
