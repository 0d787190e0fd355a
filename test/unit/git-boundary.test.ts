// The plugin and the CLI touch git through one module (src/git/run.ts) only: no other source file
// starts a process of git. The few other files that start processes are named here with what they
// start, and none of them names git.
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir } from "../harness/harness.js"

const src = join(packageDir(), "src")

/** The files allowed to start processes, and what each starts. */
const STARTS_PROCESSES: Record<string, string> = {
  "git/run.ts": "git, for everything the plugin and the CLI do with a repository",
  "actions/checks.ts": "the user's check commands (sh -c)",
  "actions/notifier.ts": "the desktop notifier on PATH",
  "cli/opencode.ts": "the opencode binary (doctor, install)",
  "cli/run/host.ts": "opencode serve, for ralph-loop run",
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })
}

describe("one way to git", () => {
  const files = sources(src).map((path) => ({ name: relative(src, path), text: readFileSync(path, "utf8") }))

  it("only the named files import child_process", () => {
    const starting = files
      .filter((f) => /from "(node:)?child_process"/.test(f.text))
      .map((f) => f.name)
      .sort()
    expect(starting).toEqual(Object.keys(STARTS_PROCESSES).sort())
  })

  it("of them, only src/git/run.ts starts git", () => {
    const namingGit = files.filter((f) => f.name in STARTS_PROCESSES && /["'`]git["'`]/.test(f.text)).map((f) => f.name)
    expect(namingGit).toEqual(["git/run.ts"])
  })

  it("no source file runs git through a shell or Bun", () => {
    const shelled = files
      .filter((f) => /\bBun\.(spawn|\$)|\$`git\b|["'`]sh["'`][^\n]*\bgit\b/.test(f.text))
      .map((f) => f.name)
    expect(shelled).toEqual([])
  })
})
