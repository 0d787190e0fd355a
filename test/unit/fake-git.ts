// A `git` first on PATH that answers some calls itself and passes the rest to the real git: for the
// failures and old versions a real repository does not show. The PATH is put back after each test.
import { execFileSync } from "node:child_process"
import { chmodSync, writeFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import { afterEach } from "vitest"

/** Call once at the top of a test file; the function it returns puts a fake git in `dir` first on PATH. */
export function fakeGit(): (dir: string, cases: string) => void {
  const PATH = process.env.PATH
  afterEach(() => {
    process.env.PATH = PATH
  })
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim()
  /** `cases`: `case` branches of sh on " $* " (the arguments, space-separated), before the real git runs. */
  return (dir, cases) => {
    writeFileSync(join(dir, "git"), `#!/bin/sh\ncase " $* " in\n${cases}\nesac\nexec "${real}" "$@"\n`)
    chmodSync(join(dir, "git"), 0o755)
    process.env.PATH = `${dir}${delimiter}${PATH ?? ""}`
  }
}
