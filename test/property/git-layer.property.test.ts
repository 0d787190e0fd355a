// Property test of the git layer (issue 29): random sequences of loop iterations, checkpoints and
// rollbacks, the user's own edits meanwhile (tracked, untracked, ignored, deleted, renamed, odd
// names, now and then thousands of files), autoCommit, worktree loops merged back and clean, on
// real temporary repositories. After every step the repository must be what the model says
// (test/property/git-world.ts): the user's work never lost nor committed by the plugin, HEAD, the
// index and the stash changed only where the docs say, nothing removed that is not the plugin's.
//
//   RALPH_FUZZ_RUNS   sequences to try (default 20 under `npm test`; `npm run fuzz` runs more)
//   RALPH_FUZZ_SEED   the seed (default: a fixed one, so `npm test` is repeatable)
//   RALPH_FUZZ_PATH   with RALPH_FUZZ_SEED: replay exactly the (shrunk) failing sequence reported
//   RALPH_FUZZ_LENGTH longest sequence in steps (default 30)
//   RALPH_FUZZ_STATS  =1: print what the runs reached
//   RALPH_FUZZ_TRACE  =1: print the steps of every run that passed
import fc from "fast-check"
import { afterAll, beforeAll, describe, it } from "vitest"
import { runConfig, steps, type RunConfig, type Step } from "./git-steps.js"
import { playSteps } from "./git-world.js"

const numRuns = Number(process.env.RALPH_FUZZ_RUNS ?? 20)
const CI_SEED = 290329
const seed = process.env.RALPH_FUZZ_SEED !== undefined ? Number(process.env.RALPH_FUZZ_SEED) : CI_SEED
const path = process.env.RALPH_FUZZ_PATH
const maxLength = Number(process.env.RALPH_FUZZ_LENGTH ?? 30)
const stats = new Map<string, number>()

// git reads no configuration of the machine's (a global hook, signing, excludes file would change what is tested).
const ISOLATED = {
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
  XDG_CONFIG_HOME: "/nonexistent/ralph-loop-test",
}
const saved = Object.fromEntries(Object.keys(ISOLATED).map((key) => [key, process.env[key]]))
beforeAll(() => Object.assign(process.env, ISOLATED))
afterAll(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
})

/**
 * Played first in every run of the test (fast-check's examples): the costly and the rarer steps
 * together — thousands of untracked files, ignore rules changed mid-loop by the user and by the agent,
 * a rollback to the start, a worktree loop carrying the user's changes, a file the agent forces past
 * .gitignore — at the repository's top and in a folder of it.
 */
const EXAMPLES: Array<[RunConfig, Step[]]> = [
  [
    { sub: false, bulk: true, dirty: true },
    [
      { kind: "start", loop: 0 },
      { kind: "user", edit: { op: "bulk" } },
      {
        kind: "iterate",
        edits: [
          { op: "write", pick: 0 },
          { op: "rename", pick: 1, git: true },
          { op: "delete", pick: 2 },
        ],
        again: false,
      },
      { kind: "user", edit: { op: "ignore", pick: 2 } },
      { kind: "user", edit: { op: "write", pick: 0 } },
      {
        kind: "iterate",
        edits: [
          { op: "write", pick: 3 },
          { op: "stage", pick: 0 },
        ],
        again: false,
      },
      { kind: "rollback", loop: 0, to: "start" },
      {
        kind: "iterate",
        edits: [
          { op: "write", pick: 5 },
          { op: "revert", pick: 0 },
          { op: "ignore", pick: 0 },
        ],
        again: false,
      },
      { kind: "auto-commit" },
      {
        kind: "worktree-loop",
        withChanges: true,
        edits: [
          { op: "write", pick: 4 },
          { op: "force-ignored", pick: 0 },
        ],
        strategy: "merge",
      },
      { kind: "user", edit: { op: "bulk" } },
      { kind: "worktree-loop", withChanges: false, edits: [{ op: "write", pick: 6 }], strategy: "ff-or-branch" },
      { kind: "clean-worktrees", force: true },
      { kind: "start", loop: 1 },
      { kind: "clean-checkpoints", loop: 0 },
    ],
  ],
  [
    { sub: true, bulk: false, dirty: true },
    [
      { kind: "start", loop: 2 },
      { kind: "user", edit: { op: "rename", pick: 3, git: true } },
      {
        kind: "iterate",
        edits: [
          { op: "rename", pick: 0, git: true },
          { op: "write", pick: 7 },
        ],
        again: false,
      },
      { kind: "iterate", edits: [{ op: "write", pick: 7 }], again: true },
      { kind: "user", edit: { op: "commit", picks: [0, 1] } },
      { kind: "rollback", loop: 0, to: "default" },
      { kind: "auto-commit" },
    ],
  ],
  // Found by `npm run fuzz` (seed 1204482785): the agent's `git mv` staged in one loop, a rollback of
  // that loop during the next, then an autoCommit — the staged rename of files the commit leaves as
  // HEAD has them stays staged (the index takes only the committed files).
  [
    { sub: false, bulk: false, dirty: false },
    [
      { kind: "start", loop: 0 },
      { kind: "iterate", edits: [{ op: "rename", pick: 0, git: false }], again: false },
      {
        kind: "iterate",
        edits: [
          { op: "rename", pick: 0, git: true },
          { op: "revert", pick: 0 },
        ],
        again: false,
      },
      { kind: "start", loop: 205 },
      { kind: "rollback", loop: 0, to: "default" },
      { kind: "auto-commit" },
    ],
  ],
]

describe("the git layer under random steps", () => {
  it(`keeps the user's work, HEAD, index and stash over ${numRuns} sequences (seed ${seed})`, {
    timeout: Math.max(300_000, numRuns * 30_000),
  }, async () => {
    const property = fc.asyncProperty(runConfig, steps(maxLength), (config, list) => playSteps(config, list, stats))
    const details = await fc.check(property, { numRuns, seed, examples: EXAMPLES, ...(path ? { path } : {}) })
    if (process.env.RALPH_FUZZ_STATS === "1")
      console.log(
        [...stats]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n"),
      )
    if (!details.failed) return
    const error = details.errorInstance
    throw new Error(
      [
        `git-layer property: failed after ${details.numRuns} runs and ${details.numShrinks} shrinks; seed ${details.seed}, path ${details.counterexamplePath ?? "?"}`,
        `Replay: RALPH_FUZZ_RUNS=${numRuns} ${process.env.RALPH_FUZZ_LENGTH ? `RALPH_FUZZ_LENGTH=${maxLength} ` : ""}RALPH_FUZZ_SEED=${details.seed} RALPH_FUZZ_PATH=${details.counterexamplePath ?? ""} npx vitest run test/property/git-layer.property.test.ts`,
        "",
        error instanceof Error ? error.message : String(error),
        "",
        `Shrunk steps: ${fc.stringify(details.counterexample)}`,
      ].join("\n"),
    )
  })
})
