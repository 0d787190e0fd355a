// Settling an ended worktree loop on a real repository: the watch's tick finds it by the one
// lifecycle and runs the settling job (commit, merge, archive, remove) through production's
// Interpreter. Two loops that used the same worktree name keep their files apart in merged/.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Interpreter } from "../../src/engine/interpreter.js"
import { LoopRunner } from "../../src/engine/runner.js"
import { WorktreeWatch } from "../../src/worktrees/worktree-watch.js"
import { createWorktree } from "../../src/worktrees/worktree-git.js"
import type { RalphContext } from "../../src/engine/context.js"
import type { SettledWorktree } from "../../src/worktrees/parallel-file.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { readWorktreeState, writeWorktreeState } from "../../src/worktrees/worktree-file.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "./fixtures.js"

const tmp = tempDirs()
const git = (dir: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  }).trim()

function repo(): string {
  const dir = tmp("wt-settle-")
  git(dir, "init", "-q", "-b", "main")
  writeFileSync(join(dir, "a.txt"), "a\n")
  git(dir, "add", ".")
  git(dir, "commit", "-q", "-m", "start")
  return dir
}

/** The main instance of `dir`: its watch, with a runner over production's Interpreter; resolves each settling as it is heard. */
function mainInstance(dir: string) {
  const heard: SettledWorktree[] = []
  const waiters: Array<() => void> = []
  const api = {
    log: () => undefined,
    toast: () => undefined,
    disposeInstance: async () => undefined,
    sessionsIn: async () => [],
  }
  const interpreter = new Interpreter({
    directory: dir,
    api: api as never,
    store: undefined as never,
    memory: undefined as never,
    onWake: () => undefined,
  })
  const ctx = {
    directory: dir,
    api,
    runner: new LoopRunner(interpreter, undefined as never),
    parallel: {
      settled: (settled: SettledWorktree) => {
        heard.push(settled)
        for (const resolve of waiters.splice(0)) resolve()
      },
    },
    // The loops' reports are not waited for: their time is over.
    now: () => Date.now() + 60_000,
  } as unknown as RalphContext
  const watch = new WorktreeWatch(
    () => ctx,
    () => () => undefined,
  )
  /** One tick, and the settling it started heard. */
  const settleOnce = async () => {
    const settled = new Promise<void>((resolve) => waiters.push(resolve))
    await watch.tick()
    await settled
    return heard.at(-1) as SettledWorktree
  }
  return { settleOnce }
}

/** A worktree `name` whose loop `id` completed after writing `file`. */
async function completedWorktree(dir: string, name: string, id: string, file: string): Promise<string> {
  const { path, base } = await createWorktree(dir, name, false)
  await writeWorktreeState(path, {
    name,
    branch: `ralph/${name}`,
    mainDirectory: dir,
    base,
    mergeStrategy: "merge",
    createdAt: Date.now(),
  })
  writeFileSync(join(path, file), `${id}\n`)
  const store = new LoopStore(path)
  await store.save(
    loop({ id, sessionID: id, phase: "stopped", stopReason: "completed" }),
    "stopped:completed",
    Date.now(),
  )
  await store.flush()
  return path
}

const loopFiles = (folder: string) =>
  readdirSync(join(folder, ".opencode/ralph-loop/loops"))
    .filter((name) => name.endsWith(".json"))
    .sort()

describe("settling a worktree loop", () => {
  it("merges its branch, archives its loop's files in merged/<NAME>, then removes the worktree", async () => {
    const dir = repo()
    const path = await completedWorktree(dir, "fix", "ses_one", "one.txt")
    const settled = await mainInstance(dir).settleOnce()
    expect(settled.outcome).toEqual({
      result: "merged",
      detail: "ralph/fix merged into main; the worktree is removed",
      removed: true,
    })
    expect(readFileSync(join(dir, "one.txt"), "utf8")).toBe("ses_one\n")
    expect(existsSync(path)).toBe(false)
    expect(git(dir, "branch", "--list", "ralph/fix")).toBe("")
    const archive = join(dir, ".opencode/ralph-loop/merged/fix")
    expect(readWorktreeState(archive)?.merge).toEqual(settled.outcome)
    expect(loopFiles(archive)).toEqual(["ses_one.json"])
  })

  it("a second loop of the same name is archived in a folder of its own: the earlier archive is moved aside, the two loops' files never mix", async () => {
    const dir = repo()
    const main = mainInstance(dir)
    await completedWorktree(dir, "fix", "ses_one", "one.txt")
    await main.settleOnce()
    await completedWorktree(dir, "fix", "ses_two", "two.txt")
    const second = await main.settleOnce()
    expect(second.outcome.result).toBe("merged")

    const merged = join(dir, ".opencode/ralph-loop/merged")
    const folders = readdirSync(merged).sort()
    expect(folders).toHaveLength(2)
    expect(folders[0]).toBe("fix")
    expect(folders[1]).toMatch(/^fix@\d{8}T\d{6}Z$/)
    expect(loopFiles(join(merged, "fix"))).toEqual(["ses_two.json"])
    expect(loopFiles(join(merged, folders[1] as string))).toEqual(["ses_one.json"])
    expect(readWorktreeState(join(merged, "fix"))?.merge).toEqual(second.outcome)
  })
})

describe("the watch with several OpenCode processes on the project", () => {
  it("only the holder of the project's lease settles a worktree loop: another process's watch starts no job, and starts one once it holds the lease", async () => {
    const dir = repo()
    const path = await completedWorktree(dir, "fix", "ses_one", "one.txt")
    const started: string[] = []
    const ctx = {
      directory: dir,
      api: { log: () => undefined },
      runner: { worktreeJob: (label: string) => started.push(label) },
      now: () => Date.now() + 60_000,
    } as unknown as RalphContext
    let holds = false
    const watch = new WorktreeWatch(
      () => ctx,
      () => () => undefined,
      () => holds,
    )
    await watch.tick()
    expect(started).toEqual([])
    expect(existsSync(path)).toBe(true)
    holds = true
    await watch.tick()
    expect(started).toEqual(["settling of the worktree fix"])
  })
})
