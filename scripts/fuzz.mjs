// `npm run fuzz`: the randomized tests with many more runs than `npm test` gives them, each from a
// fresh seed — the event-order fuzzer (test/fuzz/event-order.fuzz.test.ts: 20,000 sequences rather
// than 400), then the git-layer property test (test/property/git-layer.property.test.ts: real
// repositories, 300 sequences rather than 20) and autoCommit of a story of 70,000 files
// (test/property/auto-commit-many.property.test.ts). No build needed: vitest runs the sources.
//
//   node scripts/fuzz.mjs [runs] [--seed N] [--path P] [--length N] [--stats] [--survey] [--only events|git] [--git-runs N]
//
//   runs         event-order sequences to try (default: $FUZZ_RUNS or 20000)
//   --git-runs N git-layer sequences to try (default: $RALPH_FUZZ_RUNS or 300)
//   --only X     run one of them: events, or git
//   --seed N     start from seed N (a failure prints its seed and path)
//   --path P     with --seed: replay exactly the shrunk failing sequence (of the event-order fuzzer,
//                or with --only git of the git-layer test)
//   --length N   longest sequence (event-order: actions, default 80; with --only git: steps, default 30)
//   --stats      print what the runs reached
//   --survey     event-order only: do not stop at the first failure, list every broken invariant
import { spawnSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
// A fresh seed each time (npm test pins one): more of the space gets explored over time.
const freshSeed = String((Date.now() ^ (Math.random() * 0x7fffffff)) | 0)
const options = { runs: process.env.FUZZ_RUNS ?? "20000", gitRuns: process.env.RALPH_FUZZ_RUNS ?? "300" }
const args = process.argv.slice(2)
for (let i = 0; i < args.length; i += 1) {
  const arg = args[i]
  const value = () => {
    const next = args[++i]
    if (next === undefined) fail(`${arg} needs a value`)
    return next
  }
  if (arg === "--seed") options.seed = value()
  else if (arg === "--path") options.path = value()
  else if (arg === "--length") options.length = value()
  else if (arg === "--stats") options.stats = true
  else if (arg === "--survey") options.survey = true
  else if (arg === "--only") options.only = value()
  else if (arg === "--git-runs") options.gitRuns = value()
  else if (/^\d+$/.test(arg)) options.runs = arg
  else fail(`unknown argument ${arg}`)
}
if (options.path && !options.seed) fail("--path needs --seed")
if (options.only && options.only !== "events" && options.only !== "git") fail("--only takes events or git")
if (!/^\d+$/.test(options.gitRuns)) fail("--git-runs takes a number")
// A path replays one failure: of the event-order fuzzer unless --only git says otherwise.
const only = options.only ?? (options.path ? "events" : undefined)

function fail(message) {
  console.error(
    `fuzz: ${message}\nusage: node scripts/fuzz.mjs [runs] [--seed N] [--path P] [--length N] [--stats] [--survey] [--only events|git] [--git-runs N]`,
  )
  process.exit(2)
}

const vitest = join(root, "node_modules", "vitest", "vitest.mjs")
const run = (file, env) =>
  spawnSync(process.execPath, [vitest, "run", file], { cwd: root, env: { ...process.env, ...env }, stdio: "inherit" })
    .status ?? 1

let status = 0
if (only !== "git") {
  const env = { FUZZ_RUNS: options.runs, FUZZ_SEED: options.seed ?? process.env.FUZZ_SEED ?? freshSeed }
  if (options.path) env.FUZZ_PATH = options.path
  if (options.length) env.FUZZ_LENGTH = options.length
  if (options.stats) env.FUZZ_STATS = "1"
  if (options.survey) env.FUZZ_SURVEY = "1"
  status = run("test/fuzz/event-order.fuzz.test.ts", env)
}
if (only !== "events") {
  const env = {
    RALPH_FUZZ_RUNS: options.gitRuns,
    RALPH_FUZZ_SEED: options.seed ?? process.env.RALPH_FUZZ_SEED ?? freshSeed,
  }
  if (options.path) env.RALPH_FUZZ_PATH = options.path
  if (options.length && only === "git") env.RALPH_FUZZ_LENGTH = options.length
  if (options.stats) env.RALPH_FUZZ_STATS = "1"
  const git = run("test/property/git-layer.property.test.ts", env)
  status ||= git
  // autoCommit of a story of 70,000 files (npm test runs a few thousand with long names).
  const many = run("test/property/auto-commit-many.property.test.ts", {
    RALPH_COMMIT_FILES: process.env.RALPH_COMMIT_FILES ?? "70000",
  })
  status ||= many
}
process.exit(status)
