// The plugin and the CLI touch git through one module (src/git/run.ts) only: no other source file
// starts a process of git, by a static import, a dynamic `import()` or a `require`. The few other
// files that start processes are named here with what they start, and none of them names git. The
// git API's rules hold in one file each: the temporary index, the commits' identity, the merge preview.
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir } from "../harness/harness.js"

const src = join(packageDir(), "src")

/** The files allowed to start processes, and what each starts. */
const STARTS_PROCESSES: Record<string, string> = {
  "git/run.ts": "git, for everything the plugin and the CLI do with a repository",
  "checks/run-checks.ts": "the user's check commands (sh -c)",
  "notify/notifier.ts": "the desktop notifier on PATH",
  "cli/opencode.ts": "the opencode binary (doctor, install)",
  "cli/run/host.ts": "opencode serve, for ralph-loop run",
}

/** Whether a source text loads child_process, in any of the ways TypeScript and Node allow. */
const CHILD_PROCESS = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["'`](?:node:)?child_process["'`]/
const loadsChildProcess = (text: string): boolean => CHILD_PROCESS.test(text)

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })
}

describe("one way to git", () => {
  const files = sources(src).map((path) => ({ name: relative(src, path), text: readFileSync(path, "utf8") }))

  it("the check sees every way of loading child_process", () => {
    const loads = [
      `import { execFile } from "node:child_process"`,
      `import * as cp from 'child_process'`,
      `import "node:child_process"`,
      `const { spawn } = await import("node:child_process")`,
      `const cp = await import( 'child_process' )`,
      `const cp = require("child_process")`,
      `const cp = require(\`node:child_process\`)`,
    ]
    expect(loads.filter((text) => !loadsChildProcess(text))).toEqual([])
    expect(loadsChildProcess(`// child_process is named in a comment, not loaded`)).toBe(false)
  })

  it("only the named files load child_process", () => {
    const starting = files
      .filter((f) => loadsChildProcess(f.text))
      .map((f) => f.name)
      .sort()
    expect(starting).toEqual(Object.keys(STARTS_PROCESSES).sort())
  })

  it("the temporary index, the identity and the merge preview are each made in one file of src/git", () => {
    const where = (pattern: RegExp) => files.filter((f) => pattern.test(f.text)).map((f) => f.name)
    expect(where(/GIT_INDEX_FILE/)).toEqual(["git/temp-index.ts"])
    expect(where(/GIT_(AUTHOR|COMMITTER)_(NAME|EMAIL)/)).toEqual(["git/identity.ts"])
    expect(where(/["'`]merge-tree["'`]/)).toEqual(["git/merge-preview.ts"])
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
