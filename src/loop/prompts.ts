// Every text the loop puts in front of the model. Pure functions of the loop's state.
import { REFUSED } from "../evidence/refusal.js"
import { EXPECTATIONS_REFUSED, REPLAY_REFUSED } from "./replay-judgement.js"
import { featureOn } from "../config/features.js"
import { MEMORY_FILE } from "../project/own-files.js"
import { maxIterations, type Loop, type LoopSettings } from "./loop.js"
import { STATUS_BLOCK_INSTRUCTION } from "./status-block.js"
import { currentStory, storyPosition, type PlanState } from "../plan/plan.js"
import { planBody, planRules, storyOpening } from "../plan/prompts.js"

export function promiseTag(word: string): string {
  return `<promise>${word}</promise>`
}

/** How the model hands on what it learned: the progress log keeps these lines for later sessions. */
const LEARNING_RULE =
  "Anything a later session should know about this codebase (a convention, a gotcha, where something lives), " +
  "write as a line <learning>…</learning>; the progress log keeps it."

/** The other way to claim: the tool answers in the same turn whether the claim holds. */
const DONE_TOOL_RULE =
  "Instead of the promise you may call the ralph_done tool (summary, evidence): it runs the checks at once and " +
  "answers whether the claim is accepted; ralph_status shows the loop's state."

/**
 * Appended to the first user message of a loop (seed 000, step 0), and closing every restart
 * prompt. With a plan, the promise is for the current story.
 */
export function loopRules(
  settings: Pick<LoopSettings, "promiseWord" | "statusBlock" | "disabledFeatures" | "autoContinue">,
  plan?: PlanState,
): string {
  const promise = plan
    ? planRules(promiseTag(settings.promiseWord))
    : [
        `When the task is completely done — everything asked for works — end your final reply with ` +
          `${promiseTag(settings.promiseWord)}.`,
        `Only then: never write it for partial progress, never to get out of the loop, and do not mention ` +
          `it otherwise.`,
        `If you stop before the task is done, you will be asked to continue.`,
      ].join(" ")
  const claim = `${promise}\n\n${DONE_TOOL_RULE}`
  const rules = featureOn(settings, "progress-log") ? `${claim}\n\n${LEARNING_RULE}` : claim
  return settings.statusBlock ? `${rules}\n\n${STATUS_BLOCK_INSTRUCTION}` : rules
}

/** The task — and in a plan loop the current story, the plan's progress and the progress log (`progress`). */
const taskSection = (loop: Loop, progress = ""): string[] =>
  loop.plan ? planBody(loop.task, loop.plan, loop.settings.checks, progress) : ["## Task", loop.task]

/** The first message of a plan loop (the rules are appended to it as to any first message). */
export function planFirstPrompt(loop: Loop, progress: string): string {
  return taskSection(loop, progress).join("\n")
}

/** The short loop-mode note added to the system prompt of a loop's session. */
export function systemNote(loop: Loop): string {
  const story = loop.plan ? currentStory(loop.plan) : undefined
  const position =
    loop.plan && story
      ? ` Plan: story ${story.id} (${storyPosition(loop.plan).number} of ${loop.plan.stories.length}) — work on ` +
        `this story only.`
      : ""
  return [
    `Ralph loop mode: iteration ${loop.iteration} of ${maxIterations(loop)}.${position}`,
    `You are working autonomously on a task the user gave once; nobody will answer questions in between — make ` +
      `reasonable choices and keep going.`,
    `Finish with ${promiseTag(loop.settings.promiseWord)} (or call ralph_done) only when the whole ` +
      `${loop.plan ? "story" : "task"} is truly done.`,
    loop.settings.statusBlock ? "End every reply with the ---RALPH_STATUS--- block." : "",
    `What earlier loops learned in this project is in ${MEMORY_FILE} (read it when stuck)` +
      `${featureOn(loop.settings, "remember") ? "; add a lasting lesson with <remember>…</remember>" : ""}.`,
  ]
    .filter(Boolean)
    .join(" ")
}

const header = (loop: Loop, iteration: number, where: string) =>
  `[Ralph loop · iteration ${iteration} of ${maxIterations(loop)} · ${where}]`

/** The user's /ralph-hint texts, if any, as a section of the next prompt. */
const hintSection = (loop: Loop): string[] =>
  loop.hints.length === 0 ? [] : ["", "## Hint from the user", ...loop.hints.map((hint) => `- ${hint}`)]

/** The checks' verdict on the last turn, if they ran and something failed. */
const checkSection = (feedback?: string): string[] => (feedback ? ["", "## Checks run by the plugin", feedback] : [])

/** The prompt that restarts the task in a fresh session, carrying the previous session's summary. */
export function freshSessionPrompt(
  loop: Loop,
  iteration: number,
  summary: string,
  note?: string,
  feedback?: string,
): string {
  return [
    header(loop, iteration, "fresh session"),
    "",
    "You are continuing a task that an earlier session worked on. Its changes are already on disk; the handoff " +
      "below says what was done and what is left. Check the current state of the files before relying on it.",
    note ? `The previous session ended because ${note}.` : "",
    loop.plan ? (storyOpening(loop.plan, iteration) ?? "") : "",
    "",
    ...taskSection(loop),
    "",
    "## Handoff from the previous session",
    summary.trim() || "(no summary could be produced — inspect the project to see what was done)",
    ...checkSection(feedback),
    ...hintSection(loop),
    "",
    "## Rules",
    loopRules(loop.settings, loop.plan),
  ]
    .filter((line, i, all) => line !== "" || all[i - 1] !== "")
    .join("\n")
}

/** Gotchas from earlier failures on the files the loop works on (seed 001's memory). */
const gotchaSection = (gotchas: readonly string[]): string[] =>
  gotchas.length === 0 ? [] : ["", "## Gotchas from earlier failures on these files", ...gotchas.map((g) => `- ${g}`)]

/**
 * The prompt that re-prompts the same session (strategy `continue`); `progress`: the progress log's excerpt (plan
 * loops).
 */
export function continuePrompt(
  loop: Loop,
  iteration: number,
  note?: string,
  feedback?: string,
  gotchas: readonly string[] = [],
  progress = "",
): string {
  const what = loop.plan ? "story" : "task"
  return [
    header(loop, iteration, "same session"),
    "",
    (loop.plan ? storyOpening(loop.plan, iteration) : undefined) ??
      (note
        ? `The last turn ended because ${note}. Continue working on the ${what} from where you stopped.`
        : feedback?.startsWith(REPLAY_REFUSED)
          ? `The plugin did not accept your claim: the tests this project had when the loop began fail on your ` +
            `code (below), so the ${what} is not finished. Continue working on it.`
          : feedback?.startsWith(EXPECTATIONS_REFUSED)
            ? `The plugin did not accept your claim yet: you changed what tests of the project expect (below). ` +
              `Continue working on the ${what}.`
            : feedback?.startsWith(REFUSED)
              ? `The plugin did not accept your claim: your changes weaken the checks (below), so the ${what} is not ` +
                `finished. Continue working on it.`
              : feedback
                ? `The plugin ran the project's checks and they do not pass yet, so the ${what} is not finished. ` +
                  `Continue working on it.`
                : `Your last reply did not end with ${promiseTag(loop.settings.promiseWord)}, so the ${what} is not ` +
                  `finished. Continue working on it from where you stopped.`),
    "",
    ...taskSection(loop, progress),
    ...checkSection(feedback),
    ...gotchaSection(gotchas),
    ...hintSection(loop),
    "",
    "## Rules",
    loopRules(loop.settings, loop.plan),
  ].join("\n")
}

/** The same iteration goes on: after a back-off, a pause, or a restart of OpenCode. */
export function resumePrompt(
  loop: Loop,
  why = "Your last turn was cut short by the model provider (a usage limit, rate limit or overload), not by you. " +
    "Continue the task from where you stopped.",
  progress = "",
): string {
  return [
    header(loop, loop.iteration, "resuming"),
    "",
    why,
    "",
    ...taskSection(loop, progress),
    ...hintSection(loop),
    "",
    "## Rules",
    loopRules(loop.settings, loop.plan),
  ].join("\n")
}

/** Title of a session the loop creates, so the user can tell them apart in the session list. */
export function sessionTitle(loop: Loop, iteration: number): string {
  return `Ralph ${iteration}/${maxIterations(loop)} · ${shorten(loop.task, 60)}`
}

export function shorten(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}
