// Event-order replay fuzzer (issue 7): seeded sequences of runtime-shaped OpenCode events, user
// commands and runner call completions, played through the plugin's hooks, the LoopManager and the
// pure decision core by the simulator in sim.ts, which checks the loop invariants after every step.
//
//   FUZZ_RUNS   how many sequences (default 1000; `npm run fuzz` runs 20000)
//   FUZZ_SEED   the seed (default: a fresh one, printed in the test name and on failure)
//   FUZZ_PATH   with FUZZ_SEED: replay exactly the (shrunk) failing sequence fast-check reported
//   FUZZ_LENGTH longest sequence (default 60 actions)
//
// A failure prints the invariant, the trace of the shrunk sequence and the replay command.
import fc from "fast-check"
import { describe, it } from "vitest"
import { runConfig, scenario } from "./arbitraries.js"
import { runScenario } from "./sim.js"

const numRuns = Number(process.env.FUZZ_RUNS ?? 1000)
const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
const path = process.env.FUZZ_PATH
const maxLength = Number(process.env.FUZZ_LENGTH ?? 60)

describe("event-order fuzzer", () => {
  it(`keeps the loop invariants over ${numRuns} event orders (seed ${seed})`, { timeout: Math.max(120_000, numRuns * 40) }, async () => {
    const property = fc.asyncProperty(runConfig, scenario(maxLength), async (config, actions) => {
      await runScenario(config, actions)
    })
    const details = await fc.check(property, { numRuns, seed, ...(path ? { path } : {}) })
    if (!details.failed) return
    const replay = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ""} npx vitest run test/fuzz/event-order.fuzz.test.ts`
    const error = details.errorInstance
    const message = error instanceof Error ? error.message : String(error)
    throw new Error(
      [
        `Event-order fuzzer: ${details.numShrinks} shrinks after ${details.numRuns} runs, seed ${details.seed}, path ${details.counterexamplePath ?? "?"}`,
        `Replay: ${replay}`,
        "",
        message,
        "",
        `Counterexample: ${fc.stringify(details.counterexample)}`,
      ].join("\n"),
    )
  })
})
