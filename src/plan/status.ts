// How a plan shows in /ralph-status and in ralph_report.md. Pure.
import type { ParsedPlan } from "./plan-reader.js"
import { currentStory, workOrder, type PlanState, type Story } from "./plan.js"

type StoryState = "done" | "current" | "waiting" | "to do"

function states(plan: PlanState): Array<{ id: string; title: string; state: StoryState; detail: string }> {
  const current = currentStory(plan)
  return plan.stories.map((story) => {
    const done = plan.done.find((d) => d.id === story.id)
    if (done)
      return {
        ...story,
        state: "done",
        detail: done.iteration > 0 ? `iteration ${done.iteration}` : "before this loop",
      }
    if (story === current) return { ...story, state: "current", detail: "" }
    const waiting = story.dependsOn.filter((id) => !plan.done.some((d) => d.id === id))
    return {
      ...story,
      state: waiting.length ? "waiting" : "to do",
      detail: waiting.length ? `for ${waiting.join(", ")}` : "",
    }
  })
}

/** /ralph-status of a plan loop: one line per story with its state. */
export function planStatusLines(plan: PlanState | undefined): string[] {
  if (!plan) return []
  return [
    `Plan: ${plan.file} — ${plan.done.length} of ${plan.stories.length} stories done`,
    ...states(plan).map(
      (s) =>
        `  ${s.state === "done" ? "✓" : s.state === "current" ? "→" : "·"} ` +
        `${s.id} ${s.title} — ${s.state}${s.detail ? ` (${s.detail})` : ""}`,
    ),
  ]
}

/** /ralph-status without a loop: the plan file at prdPath, as read now. */
export function planFileLines(file: string, plan: ParsedPlan): string[] {
  const done = new Set(plan.doneInFile)
  return [
    `Plan ${file}${plan.project ? ` (${plan.project})` : ""}: ${plan.stories.length} stories, ${done.size} done ` +
      `— /ralph --prd works through it`,
    ...plan.stories.map(
      (s) =>
        `  ${done.has(s.id) ? "✓" : "·"} ${s.id} ${s.title}` +
        `${s.dependsOn.length ? ` (after ${s.dependsOn.join(", ")})` : ""}`,
    ),
  ]
}

/** ralph_report.md of a plan loop: each story, its state, the iteration it was done in, the checks that passed. */
export function planReportLines(plan: PlanState | undefined): string[] {
  if (!plan) return []
  const rows = states(plan).map((s) => {
    const done = plan.done.find((d) => d.id === s.id)
    const cell = (text: string) => text.replace(/\|/g, "\\|")
    return (
      `| ${cell(s.id)} | ${cell(s.title)} | ${s.state} | ` +
      `${done ? (done.iteration > 0 ? done.iteration : "before") : ""} | ` +
      `${done ? cell(done.checks.join(", ") || "(no checks)") : ""} |`
    )
  })
  return [
    `## Stories (${plan.file}: ${plan.done.length} of ${plan.stories.length} done)`,
    "",
    "| story | title | state | done in iteration | checks passed |",
    "|---|---|---|---|---|",
    ...rows,
    "",
  ]
}

/**
 * `ralph-loop plan check`: the plan as the loop reads it — the stories done, then the rest in the
 * order the loop would take them — and the story it would work on first.
 */
export function planCheckLines(file: string, plan: ParsedPlan): string[] {
  const done = new Set(plan.doneInFile)
  const order = workOrder(plan.stories, done)
  const about = (s: Story) =>
    [
      s.priority !== undefined ? `priority ${s.priority}` : "",
      s.dependsOn.length ? `after ${s.dependsOn.join(", ")}` : "",
    ]
      .filter(Boolean)
      .join(", ")
  const line = (mark: string, s: Story, note = about(s)) => `  ${mark} ${s.id}  ${s.title}${note ? `  (${note})` : ""}`
  const next = order[0]
  return [
    `${file}: ${plan.stories.length} ${plan.stories.length === 1 ? "story" : "stories"} read from ` +
      `${plan.shape === "[]" ? "a top-level array" : `"${plan.shape}"`}${plan.project ? ` — ${plan.project}` : ""}; ` +
      `${done.size} done`,
    ...plan.stories.filter((s) => done.has(s.id)).map((s) => line("✓", s, "done")),
    ...order.map((s, i) => line(i === 0 ? "→" : `${i + 1}.`.padStart(2), s)),
    "",
    ...(next
      ? [
          `Next: ${next.id} — ${next.title}`,
          ...(next.acceptanceCriteria.length
            ? next.acceptanceCriteria.map((c) => `  - ${c}`)
            : ["  (no acceptance criteria: the title and description say what is wanted)"]),
          `/ralph --prd ${file} works through the ${order.length} ${order.length === 1 ? "story" : "stories"} ` +
            `left, one per iteration.`,
        ]
      : ["Every story is done: /ralph --prd would start nothing."]),
  ]
}
