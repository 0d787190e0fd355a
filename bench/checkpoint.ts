// Benchmark 13 — a checkpoint of a big work tree (issue 22): a git repository of 10,000 files
// (committed, the index fresh), 100 of them changed and 10 new ones untracked, then the checkpoint
// the loop makes before each next prompt (a temporary index from the user's, `git add -A`,
// write-tree, commit-tree, update-ref), and `git status` on the same tree for scale. In a child node
// process on the built dist/, in a temp folder.
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { loadDist, median, QUICK, round, runAsChild, runChild } from "./util.js"

export interface CheckpointResult {
  files: number
  changed: number
  checkpointMs: number
  gitStatusMs: number
}

const FILES = 10_000
const CHANGED = 100

async function measure(): Promise<CheckpointResult> {
  const { makeCheckpoint } =
    await loadDist<typeof import("../src/checkpoints/checkpoint-git.js")>("actions/checkpoints.js")
  const dir = mkdtempSync(join(tmpdir(), "ralph-bench-checkpoint-"))
  const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: "1" }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "ignore"],
    })
  try {
    for (let d = 0; d < 100; d += 1) {
      mkdirSync(join(dir, `src/m${d}`), { recursive: true })
      for (let f = 0; f < FILES / 100; f += 1)
        writeFileSync(join(dir, `src/m${d}/f${f}.ts`), `export const v${f} = ${d * 1000 + f}\n`)
    }
    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "init")
    const runs = QUICK ? 3 : 9
    const checkpoint: number[] = []
    const status: number[] = []
    for (let run = 0; run < runs + 1; run += 1) {
      // A new iteration's edits: 100 files changed, 10 created.
      for (let i = 0; i < CHANGED; i += 1)
        writeFileSync(join(dir, `src/m${i}/f${run}.ts`), `export const changed = ${run}\n`)
      for (let i = 0; i < 10; i += 1) writeFileSync(join(dir, `new-${run}-${i}.ts`), "export {}\n")
      let started = process.hrtime.bigint()
      await makeCheckpoint(dir, "ses_bench", run + 1)
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      started = process.hrtime.bigint()
      git("status", "--porcelain")
      const statusMs = Number(process.hrtime.bigint() - started) / 1e6
      if (run > 0) {
        checkpoint.push(ms)
        status.push(statusMs)
      }
    }
    return {
      files: FILES,
      changed: CHANGED,
      checkpointMs: round(median(checkpoint), 1),
      gitStatusMs: round(median(status), 1),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function runCheckpointBench(): Promise<CheckpointResult> {
  return runChild<CheckpointResult>(fileURLToPath(import.meta.url), [], {}, 10 * 60_000)
}

runAsChild(import.meta.url, "checkpoint", measure)
