// What `ralph-loop run` prints: its events (lines, or JSON with --json), and its last event, the end,
// with the exit code of its class (exit-code.ts).
import { existsSync } from "node:fs"
import { totalUsage, type Loop } from "../../loop/loop.js"
import { reportFile } from "../../store/report.js"
import type { RunArgs } from "./args.js"
import { runEventSchema, type RunEvent, type RunEventBody } from "./events.js"
import { exitCode, type Ending } from "./exit-code.js"
import { runLine } from "./lines.js"

export interface RunIO {
  out: (line: string) => void
  fail: (line: string) => void
  env: NodeJS.ProcessEnv
  cwd: string
}

export class RunOutput {
  constructor(
    private readonly args: RunArgs,
    private readonly io: RunIO,
    /** The run's loop, once it has one: every event names it. */
    private readonly loopID: () => string | null,
  ) {}

  emit = (body: RunEventBody): void => {
    const event = { ...body, at: new Date().toISOString(), loop: this.loopID() } as RunEvent
    if (event.type === "text" && !this.args.verbose) return
    this.io.out(this.args.json ? JSON.stringify(runEventSchema.parse(event)) : runLine(event))
  }

  /** The last event: the run's end, with the exit code its class has. */
  end(ending: Ending, outcome: string, detail: string | null, loop?: Loop): number {
    const code = exitCode(ending)
    const usage = loop ? totalUsage(loop) : { tokens: 0, cost: 0 }
    const report = loop ? reportFile(this.args.project, loop) : undefined
    this.emit({
      type: "ended",
      outcome,
      detail,
      exitCode: code,
      iteration: loop?.iteration ?? 0,
      tokens: usage.tokens,
      cost: usage.cost,
      report: report && existsSync(report) ? report : null,
      evidence: loop?.evidence ?? null,
    })
    return code
  }

  failed(message: string, ending: Ending = { kind: "runner-failure" }, loop?: Loop): number {
    if (this.args.json) this.emit({ type: "error", message })
    this.io.fail(`ralph-loop run: ${message}`)
    return this.end(ending, ending.kind, message, loop)
  }
}
