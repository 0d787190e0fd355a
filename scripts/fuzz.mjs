// `npm run fuzz`: the event-order fuzzer (test/fuzz/event-order.fuzz.test.ts) with many more
// sequences than the 1,000 of `npm test`. No build needed: vitest runs the sources.
//
//   node scripts/fuzz.mjs [runs] [--seed N] [--path P] [--length N] [--stats] [--survey]
//
//   runs       sequences to try (default: $FUZZ_RUNS or 20000)
//   --seed N   start from seed N (a failure prints its seed and path)
//   --path P   with --seed: replay exactly the shrunk failing sequence
//   --length N longest sequence in actions (default 80)
//   --stats    print what the runs reached (decisions, prompts, stop reasons)
//   --survey   do not stop at the first failure: list every distinct broken invariant
import { spawnSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
// A fresh seed each time (npm test pins one): more of the space gets explored over time.
const env = { ...process.env, FUZZ_RUNS: process.env.FUZZ_RUNS ?? "20000", FUZZ_SEED: process.env.FUZZ_SEED ?? String((Date.now() ^ (Math.random() * 0x7fffffff)) | 0) }
const args = process.argv.slice(2)
for (let i = 0; i < args.length; i += 1) {
  const arg = args[i]
  const value = () => {
    const next = args[++i]
    if (next === undefined) fail(`${arg} needs a value`)
    return next
  }
  if (arg === "--seed") env.FUZZ_SEED = value()
  else if (arg === "--path") env.FUZZ_PATH = value()
  else if (arg === "--length") env.FUZZ_LENGTH = value()
  else if (arg === "--stats") env.FUZZ_STATS = "1"
  else if (arg === "--survey") env.FUZZ_SURVEY = "1"
  else if (/^\d+$/.test(arg)) env.FUZZ_RUNS = arg
  else fail(`unknown argument ${arg}`)
}
if (env.FUZZ_PATH && !env.FUZZ_SEED) fail("--path needs --seed")

function fail(message) {
  console.error(`fuzz: ${message}\nusage: node scripts/fuzz.mjs [runs] [--seed N] [--path P] [--length N] [--stats] [--survey]`)
  process.exit(2)
}

const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const result = spawnSync(process.execPath, [vitest, "run", "test/fuzz/event-order.fuzz.test.ts"], { cwd: root, env, stdio: "inherit" })
process.exit(result.status ?? 1)
