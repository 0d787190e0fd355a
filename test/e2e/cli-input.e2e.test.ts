// The `ralph-loop` command (dist/cli/main.js) under bad input, as a user runs it: a --project
// folder that is not there, and files whose text carries terminal escape sequences. No OpenCode:
// none of these commands needs it (PATH has no `opencode`).
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir } from "../harness/harness.js"
import { isolatedEnv } from "../harness/opencode-server.js"
import { tempDirs } from "../temp-dirs.js"

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
  const env: NodeJS.ProcessEnv = { ...isolatedEnv(root), PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"), GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" }
  const project = join(root, "project")
  mkdirSync(project)
  execFileSync("git", ["init", "-q"], { cwd: project, env })
  writeFileSync(join(project, "README.md"), "hello\n")
  execFileSync("git", ["add", "-A"], { cwd: project, env })
  execFileSync("git", ["commit", "-qm", "init"], { cwd: project, env })
  return { env, root, project }
}

function cli(m: Machine, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: m.project, env: m.env, encoding: "utf8", timeout: 120_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

const COMMANDS: string[][] = [["install"], ["uninstall"], ["doctor"], ["clean"], ["plan", "check"], ["status"], ["report"], ["checkpoints"], ["worktrees"]]

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
