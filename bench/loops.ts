// Running loops in the real OpenCode for the benchmarks (idle-to-prompt, context-growth): one
// project per run, driven until the loop has used up its turns, with the time each model request
// arrived at the mock and the time the mock had written its whole response.
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { packageDir, type Harness, type Project } from "../test/harness/harness.js"
import type { MockModel, MockRequest, Script } from "../test/harness/mock-model.js"
import { sleep } from "./util.js"

export interface Timed {
  request: MockRequest
  /** When the request arrived at the mock (epoch ms, sub-millisecond resolution). */
  received: number
  /** When the mock had written its whole (unthrottled) response (epoch ms). */
  answered: number
}

/** Epoch milliseconds with sub-millisecond resolution (comparable with Date.now()). */
export const now = (): number => performance.timeOrigin + performance.now()

/**
 * Stamps every request of the mock. The mock calls listeners just before it answers, and a reply
 * without delays is written synchronously, so the next immediate runs after the response ended.
 */
export function stampRequests(mock: MockModel): { stamps: Timed[]; stop: () => void } {
  const stamps: Timed[] = []
  const stop = mock.onRequest((request) => {
    const stamp: Timed = { request, received: now(), answered: Number.NaN }
    stamps.push(stamp)
    setImmediate(() => (stamp.answered = now()))
  })
  return { stamps, stop: () => void stop() }
}

export const TASK = "Add input validation to every handler in src/api and cover it with tests."

export type Variant = "minimal" | "continue" | "recreate"

/**
 * The scripted model says the same thing every turn and never finishes: the plugin's no-progress
 * circuit breaker and its call limit would stop or hold the loop before its turns are used up, so
 * they are set out of reach. Everything else (settleMs included) keeps its default.
 */
const RALPH_OPTIONS = { noProgressThreshold: 1000, maxCallsPerHour: 100_000, maxIterations: 10_000 }

const END_TOAST =
  /^Ralph · (retry limit|iteration limit|done|stopped|cancelled|paused|circuit breaker OPEN|call limit|.*budget)/

/**
 * One loop of `turns` model turns (the first prompt plus turns - 1 automatic ones) in a new project.
 * ralph-loop: `/ralph <task>` with maxRetries turns - 1; minimal: a plain prompt, limit turns - 1.
 * Resolves when the last turn has ended and the plugin has gone quiet; the instance is disposed.
 */
export async function runLoop(
  harness: Harness,
  name: string,
  variant: Variant,
  turns: number,
  script: Script,
): Promise<Project> {
  const project =
    variant === "minimal"
      ? await harness.project(name, {
          withPlugin: false,
          opencodeConfig: { plugin: [[join(packageDir(), "bench", "minimal-plugin.js"), { limit: turns - 1 }]] },
          script,
        })
      : await harness.project(name, {
          pluginOptions: { ...RALPH_OPTIONS, strategy: variant, maxRetries: turns - 1 },
          script,
        })
  try {
    const session = await project.newSession("bench")
    if (variant === "minimal") {
      const { error } = await project.client.session.promptAsync({
        path: { id: session },
        body: { parts: [{ type: "text", text: TASK }] },
      })
      if (error) throw new Error(`promptAsync failed: ${JSON.stringify(error)}`)
    } else {
      void project.command(session, "ralph", TASK).catch(() => undefined) // resolves after the first turn
    }
    const timeoutMs = 30_000 + turns * 5_000
    const toasts = () =>
      project.events
        .toasts()
        .map((t) => t.title)
        .join(" | ")
    await project.waitForRequests(turns, "main", timeoutMs).catch((error: unknown) => {
      throw new Error(`${name}: ${String(error)}; toasts: ${toasts()}`)
    })
    if (variant === "minimal") {
      await project.events.waitFor(
        (e) => e.type === "session.idle" && e.at > lastRequestAt(project),
        "the last idle",
        timeoutMs,
      )
    } else {
      const end = await project.events.waitFor(
        (e) => e.type === "tui.toast.show" && END_TOAST.test(String(e.properties.title)),
        "the loop's end",
        timeoutMs,
      )
      if (!/retry limit/.test(String(end.properties.title)))
        throw new Error(`${name}: the loop ended with "${end.properties.title}": ${end.properties.message}`)
    }
    await sleep(variant === "recreate" ? 800 : 300) // recreate deletes the previous session once it is idle
    return project
  } finally {
    project.close()
    await project.client.instance.dispose().catch(() => undefined)
  }
}

const lastRequestAt = (project: Project): number => project.requests("main").at(-1)?.at ?? 0

/** The model requests of one project that a prompt started (not a tool result's follow-up), in order. */
export function prompted(stamps: readonly Timed[], scope: string): Timed[] {
  return stamps.filter((s) => s.request.scope === scope && s.request.kind === "main" && s.request.lastRole === "user")
}
