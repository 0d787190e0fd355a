// Fault injection for the e2e tests: with RALPH_LOOP_FAULT_INJECTION=1 in OpenCode's environment,
// `<project>/.opencode/ralph-loop-faults.json` can make SDK calls of the plugin fail — by an error
// answer, by hanging until the call's timeout, or by a synchronous throw. Off (and never read)
// without that variable.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { z } from "zod"

export type FaultMode = "error" | "timeout" | "throw"

const planSchema = z.object({
  /** Timeout of every SDK call while faults are injected (so a "timeout" fault ends quickly). */
  callTimeoutMs: z.number().int().positive().optional(),
  calls: z.record(z.string(), z.object({ mode: z.enum(["error", "timeout", "throw"]), times: z.number().int().positive().default(1) })),
})

export class Faults {
  private constructor(
    private readonly plan: z.infer<typeof planSchema>,
  ) {}

  static load(directory: string, env: NodeJS.ProcessEnv = process.env): Faults | undefined {
    if (env.RALPH_LOOP_FAULT_INJECTION !== "1") return undefined
    try {
      return new Faults(planSchema.parse(JSON.parse(readFileSync(join(directory, ".opencode", "ralph-loop-faults.json"), "utf8"))))
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
}
