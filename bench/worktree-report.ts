// The worktree bench as text: its rows of `npm run bench`'s table (each configuration's speed-up,
// its limit on this machine, the split of the parallel run's time) and each story's timeline.
import { type Phase, PHASES } from "./worktree-limit.js"
import type { RunTimeline } from "./worktree-timeline.js"
import { configLabel, type WorktreeBenchResult } from "./worktree.js"

type Row = [benchmark: string, measure: string, result: string, goal: string, verdict: string]

/** Issue 40: every configuration's --parallel within this much of the limit the bench states. */
export const GOAL_TO_LIMIT = 1.25

const s = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : "–")
const x = (ratio: number) => `${ratio.toFixed(2)}×`
const verdict = (ok: boolean) => (ok ? "met" : "MISSED")

const PHASE_NAMES: Record<Phase, string> = {
  worktreeAdd: "worktree add",
  instanceStart: "instance start",
  slotReset: "slot reset",
  firstRequest: "first request",
  modelTime: "model time",
  reportAndWait: "report+wait",
  merge: "merge",
}

export function worktreeRows(w: WorktreeBenchResult): Row[] {
  const out: Row[] = []
  for (const c of w.configs) {
    const label = configLabel(c)
    const loads = c.rounds.map((r) => r.load).join(", ")
    out.push([
      "worktrees",
      `${label}: one plan loop / --parallel ${c.slots} (median of ${c.rounds.length}; load ${loads})`,
      `${s(c.wallMs.sequential)} / ${s(c.wallMs.parallel)}`,
      "",
      "(info)",
    ])
    out.push([
      "worktrees",
      `  speed-up (each round: ${c.rounds.map((r) => x(r.speedup)).join(", ")})`,
      x(c.speedup),
      c.goalSpeedup ? `≥ ${c.goalSpeedup}×` : "",
      c.goalSpeedup ? verdict(c.speedup >= c.goalSpeedup) : "(info)",
    ])
    const l = c.limit
    if (l)
      out.push([
        "worktrees",
        `  limit: longest slot's model time + ${l.startWaves} × instance start (${w.cores} cores)`,
        `${s(l.limitMs)} = ${s(l.longestSlotModelMs)} + ${l.startWaves} × ${s(l.instanceStartMs)}`,
        "",
        "(info)",
      ])
    out.push([
      "worktrees",
      `  --parallel ÷ limit (each round: ${c.rounds.map((r) => x(r.toLimit)).join(", ")})`,
      x(c.toLimit),
      `≤ ${GOAL_TO_LIMIT}×`,
      verdict(c.toLimit <= GOAL_TO_LIMIT),
    ])
    const p = c.split
    if (p) {
      const n = (ms: number) => (ms / 1000).toFixed(2)
      const parts = PHASES.filter((k) => p.phases[k] > 0).map((k) => `${PHASE_NAMES[k]} ${n(p.phases[k])}`)
      out.push([
        "worktrees",
        `  split of --parallel's ${s(p.wallMs)} along ${p.slot} (${p.stories.join(", ")}), s`,
        [`/ralph ${n(p.commandMs)}`, ...parts, `other ${n(p.otherMs)}`].join(", "),
        "",
        "(info)",
      ])
    }
  }
  out.push([
    "worktrees",
    `a loop's worktree in a ${w.files.toLocaleString("en")}-file repository: git worktree add / the plugin's step`,
    `${w.createMs.gitWorktreeAdd.toFixed(1)} ms / ${w.createMs.plugin.toFixed(1)} ms`,
    "",
    "(info)",
  ])
  return out
}

/** The timeline as text: one line per story, and what each step took. */
export function timelineLines(t: RunTimeline): string[] {
  const n = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(2) : "–")
  const lines = [`/ralph → first worktree made: ${n(t.commandMs)} s`]
  const head = [
    "story",
    "worktree",
    "make wt",
    "session+inst.",
    "slot reset",
    "→ loop start",
    "→ 1st request",
    "own turns",
    "→ report",
    "→ settle",
    "commit",
    "merge-tree",
    "merge",
    "archive",
    "removal",
    "plan write",
    "| began",
    "loop",
    "1st req.",
    "merged",
    "marked",
  ]
  lines.push(head.join("  "))
  for (const story of t.stories) {
    const m = story.ms
    const a = story.at
    lines.push(
      [
        story.story,
        story.worktree,
        ...[
          m.makeWorktree,
          m.sessionAndInstance,
          m.slotReset,
          m.toLoopStart,
          m.toFirstRequest,
          m.ownTurns,
          m.toReport,
          m.toSettle,
          m.commit,
          m.mergeTree,
          m.merge,
          m.archive,
          m.removal,
          m.planWrite,
        ].map(n),
        "|",
        ...[a.launch, a.loopStarted, a.firstRequest, a.merged, a.marked].map(n),
      ].join("  "),
    )
  }
  return lines
}
