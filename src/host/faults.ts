// Fault injection for the e2e tests: with RALPH_LOOP_FAULT_INJECTION=1 in OpenCode's environment,
// `<project>/.opencode/ralph-loop-faults.json` can make SDK calls of the plugin fail — by an error
// answer, by hanging until the call's timeout, or by a synchronous throw — and can kill OpenCode
// (SIGKILL, as a crash would) when the loop reaches a named point of its work. Off (and never read)
// without that variable.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { z } from "zod"
import { OPENCODE_DIR } from "../project/own-files.js"

export type FaultMode = "error" | "timeout" | "throw"

/** The named points of a loop's work where a test can kill OpenCode (see runner.ts, loop-store.ts). */
export type CrashPoint =
  | "loop.started"
  | "turn.ended"
  | "turn.decided"
  | "restart.begun"
  | "summarize.before"
  | "summarize.after"
  | "summary.written"
  | "session.created"
  | "session.selected"
  | "iteration.saved"
  | "prompt.sent"
  | "retire.idle"
  | "transcript.written"
  | "session.deleted"
  | "state.mid-write"
  | "journal.mid-append"
  /** Issue 46: a replay's tree is made, before its checks run in it. */
  | "replay.running"

const planSchema = z.object({
  /** Timeout of every SDK call while faults are injected (so a "timeout" fault ends quickly). */
  callTimeoutMs: z.number().int().positive().optional(),
  calls: z
    .record(
      z.string(),
      z.object({ mode: z.enum(["error", "timeout", "throw"]), times: z.number().int().positive().default(1) }),
    )
    .default({}),
  /** Kill OpenCode the `nth` time the loop reaches `at` — once: a marker file keeps the restarted process alive. */
  crash: z.object({ at: z.string(), nth: z.number().int().positive().default(1) }).optional(),
})

/** Written just before the kill; its presence means the crash already happened. */
const CRASH_MARKER = "ralph-loop-crashed"

export class Faults {
  private readonly reached = new Map<string, number>()

  private constructor(
    private readonly plan: z.infer<typeof planSchema>,
    private readonly configDir: string,
  ) {}

  static load(directory: string, env: NodeJS.ProcessEnv = process.env): Faults | undefined {
    if (env.RALPH_LOOP_FAULT_INJECTION !== "1") return undefined
    const configDir = join(directory, OPENCODE_DIR)
    try {
      return new Faults(
        planSchema.parse(JSON.parse(readFileSync(join(configDir, "ralph-loop-faults.json"), "utf8"))),
        configDir,
      )
    } catch {
      return undefined
    }
  }

  get callTimeoutMs(): number | undefined {
    return this.plan.callTimeoutMs
  }

  /** The fault to inject into this call now, if any (each is used up after `times` calls). */
  take(call: string): FaultMode | undefined {
    const fault = this.plan.calls[call]
    if (!fault || fault.times <= 0) return undefined
    fault.times -= 1
    return fault.mode
  }

  /** True when this is the visit of `point` the plan kills at (counts every visit). */
  private due(point: CrashPoint): boolean {
    const crash = this.plan.crash
    if (!crash || crash.at !== point) return false
    const visits = (this.reached.get(point) ?? 0) + 1
    this.reached.set(point, visits)
    return visits === crash.nth && !existsSync(join(this.configDir, CRASH_MARKER))
  }

  /** The loop reached `point`: if the plan says so, OpenCode dies here, with nothing flushed. */
  point(point: CrashPoint): void {
    if (this.due(point)) this.kill(point)
  }

  /** `point` inside a write: `before` runs first (a half-written file), then OpenCode dies. */
  pointWithin(point: CrashPoint, before: () => void): void {
    if (!this.due(point)) return
    before()
    this.kill(point)
  }

  private kill(point: CrashPoint): never {
    writeFileSync(join(this.configDir, CRASH_MARKER), `${point}\n`)
    process.kill(process.pid, "SIGKILL")
    // SIGKILL is not delivered synchronously everywhere: nothing may run past the point meanwhile.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000)
  }
}
