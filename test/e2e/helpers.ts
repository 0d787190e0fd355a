// Shared waits and lookups for e2e tests.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, afterAll } from "vitest"
import { startHarness, type Harness, type Project } from "../harness/harness.js"

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** How long "nothing more happens" is watched for after a loop has ended. */
export const QUIET_MS = 2_000

export function waitForToast(project: Project, title: RegExp, timeoutMs = 60_000) {
  return project.events.waitFor(
    (e) => e.type === "tui.toast.show" && title.test(String(e.properties.title ?? "")),
    `a toast titled ${title}`,
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
  const deadline = Date.now() + timeoutMs
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${file}`)
    await sleep(50)
  }
  return readFileSync(file, "utf8")
}

/** Ids of the sessions the plugin pointed the TUI at, in order. */
export function selectedSessions(project: Project): string[] {
  return project.events.of("tui.session.select").map((e) => String(e.properties.sessionID))
}

/** "working on aa", "working on ab", …: a reply that differs each turn (letters: digits are folded). */
export function distinctReply(index: number): { text: string } {
  const letters = (n: number): string => (n < 26 ? String.fromCharCode(97 + n) : letters(Math.floor(n / 26) - 1) + letters(n % 26))
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
