// Every text the loop puts in front of the model. Pure functions of the loop's state.
import { maxIterations, type Loop } from "./loop.js"

export function promiseTag(word: string): string {
  return `<promise>${word}</promise>`
}

/** Appended to the first user message of a loop (seed 000, step 0). */
export function promiseInstruction(word: string): string {
  return [
    `When the task is completely done — everything asked for works — end your final reply with ${promiseTag(word)}.`,
    `Only then: never write it for partial progress, never to get out of the loop, and do not mention it otherwise.`,
    `If you stop before the task is done, you will be asked to continue.`,
  ].join(" ")
}

/** The short loop-mode note added to the system prompt of a loop's session. */
export function systemNote(loop: Loop): string {
  return [
    `Ralph loop mode: iteration ${loop.iteration} of ${maxIterations(loop)}.`,
    `You are working autonomously on a task the user gave once; nobody will answer questions in between — make reasonable choices and keep going.`,
    `Finish with ${promiseTag(loop.settings.promiseWord)} only when the whole task is truly done.`,
  ].join(" ")
}

const header = (loop: Loop, iteration: number, where: string) =>
  `[Ralph loop · iteration ${iteration} of ${maxIterations(loop)} · ${where}]`

/** The prompt that restarts the task in a fresh session, carrying the previous session's summary. */
export function freshSessionPrompt(loop: Loop, iteration: number, summary: string): string {
  return [
    header(loop, iteration, "fresh session"),
    "",
    "You are continuing a task that an earlier session worked on. Its changes are already on disk; the handoff below says what was done and what is left. Check the current state of the files before relying on it.",
    "",
    "## Task",
    loop.task,
    "",
    "## Handoff from the previous session",
    summary.trim() || "(no summary could be produced — inspect the project to see what was done)",
    "",
    "## Rules",
    promiseInstruction(loop.settings.promiseWord),
  ].join("\n")
}

/** The prompt that re-prompts the same session (strategy `continue`). */
export function continuePrompt(loop: Loop, iteration: number): string {
  return [
    header(loop, iteration, "same session"),
    "",
    `Your last reply did not end with ${promiseTag(loop.settings.promiseWord)}, so the task is not finished. Continue working on it from where you stopped.`,
    "",
    "## Task",
    loop.task,
    "",
    "## Rules",
    promiseInstruction(loop.settings.promiseWord),
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
