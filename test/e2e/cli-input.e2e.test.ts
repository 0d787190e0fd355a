// The `ralph-loop` command (dist/cli/main.js) under bad input, as a user runs it: a --project
// folder that is not there, and files whose text carries terminal escape sequences. No OpenCode:
// none of these commands needs it (PATH has no `opencode`).
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { makeCheckpoint } from "../../src/checkpoints/checkpoint-git.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { WORKTREES_DIR } from "../../src/worktrees/names.js"
import { packageDir } from "../harness/harness.js"
import { isolatedEnv } from "../harness/opencode-server.js"
import { tempDirs } from "../temp-dirs.js"
import { loop } from "../unit/fixtures.js"

const tempDir = tempDirs()
const CLI = join(packageDir(), "dist", "cli", "main.js")

interface Machine {
  env: NodeJS.ProcessEnv
  root: string
  project: string
}

/** A temp HOME without `opencode` on PATH, and a git project with one commit. */
function machine(): Machine {
  const root = tempDir("ralph-cli-input-")
  const env: NodeJS.ProcessEnv = {
    ...isolatedEnv(root),
    PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@t",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@t",
  }
  const project = join(root, "project")
  mkdirSync(project)
  execFileSync("git", ["init", "-q"], { cwd: project, env })
  writeFileSync(join(project, "README.md"), "hello\n")
  execFileSync("git", ["add", "-A"], { cwd: project, env })
  execFileSync("git", ["commit", "-qm", "init"], { cwd: project, env })
  return { env, root, project }
}

function cli(m: Machine, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd: m.project,
    env: m.env,
    encoding: "utf8",
    timeout: 120_000,
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

const COMMANDS: string[][] = [
  ["install"],
  ["uninstall"],
  ["doctor"],
  ["clean"],
  ["plan", "check"],
  ["status"],
  ["report"],
  ["checkpoints"],
  ["worktrees"],
]

describe("--project that is not a folder", () => {
  it("every command that takes --project says the folder does not exist and exits 2, creating nothing", () => {
    const m = machine()
    const missing = join(m.root, "no-such-project")
    for (const command of COMMANDS) {
      const result = cli(m, ...command, "--project", missing)
      expect({ command, status: result.status, stderr: result.stderr, stdout: result.stdout }).toEqual({
        command,
        status: 2,
        stderr: `ralph-loop: the project folder ${missing} does not exist\n`,
        stdout: "",
      })
    }
    expect(existsSync(missing)).toBe(false)
  })

  it("a file given as --project: not a folder, exit 2", () => {
    const m = machine()
    const result = cli(m, "status", "--project", join(m.project, "README.md"))
    expect(result.status).toBe(2)
    expect(result.stderr).toBe(`ralph-loop: the project folder ${join(m.project, "README.md")} is not a folder\n`)
  })
})

// A hostile file's text: set the window title (OSC), clear the screen (CSI), a one-byte CSI (C1),
// a carriage return that would overwrite the line, and a bell.
const HOSTILE = "Fix\x1b]0;pwned\x07 it\x1b[2J\u009b31m\rok\x7f"
const SHOWN = "Fix\\u001b]0;pwned\\u0007 it\\u001b[2J\\u009b31m\\u000dok\\u007f"
/** Control characters a terminal acts on: every C0 but newline and tab, DEL and C1. */
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

describe("file-derived text reaches the terminal with its control characters escaped", () => {
  it("plan check: story titles, the plan's name and the acceptance criteria", () => {
    const m = machine()
    mkdirSync(join(m.project, ".opencode"))
    const plan = {
      project: HOSTILE,
      userStories: [{ id: "US-1", title: HOSTILE, acceptanceCriteria: [HOSTILE], passes: false }],
    }
    writeFileSync(join(m.project, ".opencode", "prd.json"), JSON.stringify(plan))
    const result = cli(m, "plan", "check")
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).not.toMatch(TERMINAL_CONTROL)
    expect(result.stdout).toContain(`Next: US-1 — ${SHOWN}`)
    expect(result.stdout).toContain(`  - ${SHOWN}`)
  })

  it("status (text and --json), checkpoints and worktrees: a loop's task, a worktree's folder name", async () => {
    const m = machine()
    const hostile = loop({ task: HOSTILE })
    await new LoopStore(m.project).save(hostile, "started", 0)
    await makeCheckpoint(m.project, hostile.id, 0)
    mkdirSync(join(m.project, WORKTREES_DIR, "wt\x1b[2Jx"), { recursive: true })

    const text = cli(m, "status")
    expect(text.status, text.stderr).toBe(0)
    expect(text.stdout).not.toMatch(TERMINAL_CONTROL)
    expect(text.stdout).toContain(`Task: ${SHOWN}`)

    const json = cli(m, "status", "--json")
    expect(json.stdout).not.toMatch(TERMINAL_CONTROL)
    // The escapes are JSON's own: the document still holds the task as it is in the file.
    expect((JSON.parse(json.stdout) as { selected: { task: string } }).selected.task).toBe(HOSTILE)

    const checkpoints = cli(m, "checkpoints")
    expect(checkpoints.status, checkpoints.stderr).toBe(0)
    expect(checkpoints.stdout).not.toMatch(TERMINAL_CONTROL)
    expect(checkpoints.stdout).toContain(`${hostile.id} — ${SHOWN}`)

    const worktrees = cli(m, "worktrees")
    expect(worktrees.status, worktrees.stderr).toBe(0)
    expect(worktrees.stdout).not.toMatch(TERMINAL_CONTROL)
    expect(worktrees.stdout).toContain("wt\\u001b[2Jx")
  })

  it("status --watch still clears the screen itself before each redraw (its own escape, not a file's)", async () => {
    const m = machine()
    await new LoopStore(m.project).save(loop({ task: HOSTILE }), "started", 0)
    const watcher = spawn(process.execPath, [CLI, "status", "--watch"], {
      cwd: m.project,
      env: m.env,
      stdio: ["ignore", "pipe", "inherit"],
    })
    let screen = ""
    const exited = new Promise<number | null>((resolve) => watcher.on("exit", resolve))
    const drawn = new Promise<void>((resolve) => {
      watcher.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        screen += chunk
        if (screen.includes("Sessions:")) resolve()
      })
    })
    // The first screen drawn (or the watcher gone before it: the assertions below say what it printed).
    await Promise.race([drawn, exited])
    watcher.kill("SIGINT")
    expect(await exited).toBe(0)
    expect(screen.startsWith("\x1b[2J\x1b[H")).toBe(true)
    expect(screen.slice("\x1b[2J\x1b[H".length)).not.toMatch(TERMINAL_CONTROL)
    expect(screen).toContain(`Task: ${SHOWN}`)
  })
})
