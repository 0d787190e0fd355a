// The texts of a plan loop and of /ralph-plan. Pure functions of the plan's state.
import type { CheckConfig } from "../config/schema.js"
import { currentStory, doneIn, storyPosition, type PlanState, type Story } from "./plan.js"

const PROGRESS_LINES = 25

/** The promise's meaning in a plan loop: this story, not the whole task. */
export function planRules(promise: string): string {
  return [
    `This loop works through a plan, one story per iteration. When the current story is completely done — every ` +
      `acceptance criterion met — end your final reply with ${promise}.`,
    `Only then: never for partial progress, never to get out of the loop. The plugin then runs the checks and ` +
      `marks the story done in the plan file itself; do not mark stories done in the plan yourself ("passes", ` +
      `"status" and the like: such edits are overwritten).`,
    `Work on the current story only; the next one comes in the next iteration.`,
  ].join(" ")
}

/** The story the iteration works on: id, title, description, acceptance criteria, its checks. */
export function storySection(plan: PlanState, loopChecks: readonly CheckConfig[]): string[] {
  const story = currentStory(plan)
  if (!story) return []
  const { number, total } = storyPosition(plan)
  const checks = [...loopChecks, ...story.checks]
  return [
    `## Current story: ${story.id} (story ${number} of ${total}) — ${story.title}`,
    ...(story.description?.trim() ? ["", story.description.trim()] : []),
    "",
    "Acceptance criteria:",
    ...(story.acceptanceCriteria.length
      ? story.acceptanceCriteria.map((c) => `- ${c}`)
      : ["- (none listed: the title and description say what is wanted)"]),
    ...(checks.length
      ? [
          "",
          `Checks the plugin runs when you say it is done: ` +
            `${checks.map((c) => `${c.name} (\`${c.command}\`)`).join(", ")}`,
        ]
      : []),
    ...(plan.only !== undefined
      ? [
          "",
          `This loop works on this story only: the other stories of the plan are worked elsewhere. Do not edit ` +
            `${plan.file}, and do not commit or switch branches: when the story is done, the plugin commits its ` +
            `work on a branch of its own.`,
        ]
      : []),
  ]
}

function storyState(plan: PlanState, story: Story, current: Story | undefined): string {
  const done = plan.done.find((d) => d.id === story.id)
  if (done)
    return (
      `- [x] ${story.id} ${story.title} (` +
      `${done.iteration > 0 ? `done in iteration ${done.iteration}` : "done before this loop"})`
    )
  if (story === current) return `- [ ] ${story.id} ${story.title} ← current story`
  const waiting = story.dependsOn.filter((id) => !plan.done.some((d) => d.id === id))
  return `- [ ] ${story.id} ${story.title}${waiting.length ? ` (waits for ${waiting.join(", ")})` : ""}`
}

/** Every story with its state, for the prompt. */
function planProgress(plan: PlanState): string[] {
  const current = currentStory(plan)
  const lines = plan.stories.map((s) => storyState(plan, s, current))
  return [
    `## Plan progress: ${plan.file} — ${plan.done.length} of ${plan.stories.length} stories done`,
    ...lines.slice(0, PROGRESS_LINES),
    ...(lines.length > PROGRESS_LINES ? [`- … and ${lines.length - PROGRESS_LINES} more`] : []),
  ]
}

/** The lines that tell a new iteration what just happened: the story the plugin marked done, if any. */
export function storyOpening(plan: PlanState, iteration: number): string | undefined {
  const done = doneIn(plan, iteration - 1)
  if (!done) return undefined
  const next = currentStory(plan)
  const title = plan.stories.find((s) => s.id === done.id)?.title ?? ""
  return (
    `Story ${done.id} (${title}) is done: the plugin ` +
    `${done.checks.length ? `ran the checks (${done.checks.join(", ")}), they pass,` : "found no checks to run"} ` +
    `and marked it in the plan.${next ? ` Now work on story ${next.id}.` : ""}`
  )
}

/** The task, the story, the plan's progress and the progress log — the body of every plan prompt. */
export function planBody(
  task: string,
  plan: PlanState,
  loopChecks: readonly CheckConfig[],
  progress: string,
): string[] {
  return [
    "## Task",
    task,
    "",
    ...storySection(plan, loopChecks),
    "",
    ...planProgress(plan),
    ...(progress ? ["", "## Progress log (newest entries; .opencode/ralph-loop/progress.md)", progress] : []),
  ]
}

/** The shape /ralph-plan asks for, with one worked story. */
const EXAMPLE = `{
  "project": "…",
  "description": "…",
  "userStories": [
    {
      "id": "US-001",
      "title": "…",
      "description": "As a …, I want … so that …",
      "acceptanceCriteria": ["…", "…"],
      "priority": 1,
      "passes": false,
      "dependsOn": [],
      "checks": [{ "name": "…", "command": "…", "kind": "test" }]
    }
  ]
}`

/** /ralph-plan: what the model is asked to write. */
export function planningPrompt(task: string, file: string): string {
  return [
    `Write a plan for the task below as a JSON file at \`${file}\` (use the write tool; write nothing else). Do ` +
      `not start on the task itself.`,
    "",
    "## Task",
    task,
    "",
    "## The plan file",
    `The common Ralph prd.json shape:`,
    "```json",
    EXAMPLE,
    "```",
    "- Small stories, each doable in one session, in the order they should be done (`priority` 1 first).",
    "- Every story verifiable: acceptance criteria a check can confirm; where a shell command can verify it (a " +
      "test, a build, a grep), give it in the story's `checks` (`kind`: test, typecheck, lint or security).",
    '- Unique ids ("US-001", "US-002", …); `dependsOn` lists ids of stories that must be done first; `passes` is ' +
      "false for every story (the loop marks stories done itself).",
    "When the file is written, reply with one line: how many stories it has.",
  ].join("\n")
}

/** /ralph-plan: the plan was invalid; the model is asked once more, with the exact problems. */
export function planRetryPrompt(file: string, problems: readonly string[]): string {
  return [
    `The plan at \`${file}\` is not valid yet. Rewrite the whole file with the write tool so that these problems ` +
      `are gone:`,
    ...problems.slice(0, 20).map((p) => `- ${p}`),
    "",
    "Keep the shape asked for before. Reply with one line when it is written.",
  ].join("\n")
}
