// Shared waits and lookups for e2e tests.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, afterAll } from "vitest"
import type { Loop, StopReason, Wait } from "../../src/loop/loop.js"
import { startHarness, type Harness, type Project } from "../harness/harness.js"
import { describeLoops } from "../harness/loop-files.js"
import { waitUntil } from "../harness/wait.js"
import { runCliAsync } from "../cli-runner.js"

/** How a test's loop ends: stopped for a reason, paused for the user, or waiting on its own timer. */
export type LoopEnd =
  | { phase: "stopped"; stopReason: StopReason }
  | { phase: "paused" }
  | { phase: "waiting"; wait: Wait["reason"] }

function hasEnded(loop: Loop, end: LoopEnd): boolean {
  if (loop.phase !== end.phase) return false
  if (end.phase === "stopped") return loop.stopReason === end.stopReason && loop.retiring.length === 0
  if (end.phase === "waiting") return loop.wait?.reason === end.wait
  return true
}

/**
 * The observable end of a test: `count` loops on disk, each ended as `end` says (a stopped loop
 * also has no old session left to retire), and every session of the project idle. What the model
 * was sent is final then, so the test counts it after this. A loop stopped for another reason
 * fails at once: a stopped loop never changes again.
 */
export async function waitForLoopEnd(project: Project, end: LoopEnd, count = 1, timeoutMs = 60_000): Promise<Loop[]> {
  const loops = await waitUntil(
    () => {
      const loops = project.loops()
      const wrong = loops.find(
        (l) => l.phase === "stopped" && !(end.phase === "stopped" && l.stopReason === end.stopReason),
      )
      if (wrong)
        throw new Error(`waiting for ${JSON.stringify(end)}, but a loop ended otherwise: ${describeLoops(loops)}`)
      return loops.length === count && loops.every((l) => hasEnded(l, end)) && loops
    },
    `${count} loop(s) ${JSON.stringify(end)}`,
    timeoutMs,
    () => describeLoops(project.loops()),
  )
  await project.waitForIdle(timeoutMs)
  return loops
}

/** Resolves once OpenCode has received the first streamed text of a reply matching `text`: the model is mid-stream. */
export function waitForStreamedText(project: Project, text: RegExp, timeoutMs = 60_000) {
  return project.events.waitFor(
    (e) => e.type === "message.part.delta" && e.properties.field === "text" && text.test(String(e.properties.delta)),
    `streamed text ${text}`,
    timeoutMs,
  )
}

export function waitForToast(project: Project, title: RegExp, timeoutMs = 60_000) {
  return project.events.waitFor(
    (e) => e.type === "tui.toast.show" && title.test(String(e.properties.title ?? "")),
    `a toast titled ${title}`,
    timeoutMs,
  )
}

/**
 * Resolves once `count` toasts titled `title` have arrived. A loop's end toast is sent after its stop
 * is saved and reaches the test on a path of its own: waitForLoopEnd does not imply it.
 */
export function waitForToasts(project: Project, title: RegExp, count: number, timeoutMs = 60_000) {
  return project.events.waitForCount(
    (e) => e.type === "tui.toast.show" && title.test(String(e.properties.title ?? "")),
    count,
    `${count} toasts titled ${title}`,
    timeoutMs,
  )
}

export function toastTitles(project: Project): string[] {
  return project.events.toasts().map((t) => t.title ?? "")
}

export async function sessionIDs(project: Project): Promise<string[]> {
  const { data } = await project.client.session.list()
  return (data ?? []).map((s) => s.id).sort()
}

export function summaryFile(project: Project, sessionID: string, summaryPath = ".opencode/sessions"): string {
  return join(project.dir, summaryPath, sessionID, "ralph_summary.md")
}

export function readIfExists(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, "utf8") : undefined
}

/** Resolves with a file's text once it exists (the plugin writes some files after the moment a test waits for). */
export async function waitForFile(file: string, timeoutMs = 20_000): Promise<string> {
  await waitUntil(() => existsSync(file), file, timeoutMs)
  return readFileSync(file, "utf8")
}

/** Ids of the sessions the plugin pointed the TUI at, in order. */
export function selectedSessions(project: Project): string[] {
  return project.events.of("tui.session.select").map((e) => String(e.properties.sessionID))
}

/** "working on aa", "working on ab", …: a reply that differs each turn (letters: digits are folded). */
export function distinctReply(index: number): { text: string } {
  const letters = (n: number): string =>
    n < 26 ? String.fromCharCode(97 + n) : letters(Math.floor(n / 26) - 1) + letters(n % 26)
  return { text: `working on part ${letters(index + 26)}` }
}

/** One real OpenCode server and scripted model for a test file, ended after its last test. */
export function sharedHarness(options?: Parameters<typeof startHarness>[0]): () => Harness {
  let harness: Harness | undefined
  beforeAll(async () => {
    harness = await startHarness(options)
  })
  afterAll(async () => {
    await harness?.stop()
  })
  return () => {
    if (!harness) throw new Error("the harness has not started (use it inside a test)")
    return harness
  }
}

/** git in a test's project, with the harness's HOME (no user's or system config): what it printed, as printed. */
export const harnessGitOutput =
  (harness: () => Harness) =>
  (project: Project, ...args: string[]): string =>
    execFileSync("git", args, {
      cwd: project.dir,
      encoding: "utf8",
      env: { ...process.env, HOME: harness().root, GIT_CONFIG_NOSYSTEM: "1" },
    })

/** As harnessGitOutput, trimmed. */
export const harnessGit = (harness: () => Harness) => {
  const output = harnessGitOutput(harness)
  return (project: Project, ...args: string[]): string => output(project, ...args).trim()
}

/**
 * `ralph-loop --project DIR <args>` in a process of its own: its exit status and output. The project
 * goes first, so arguments after a `--` stay operands.
 */
export async function ralphCli(
  project: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliAsync(["--project", project, ...args], env)
}
