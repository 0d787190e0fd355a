// The one way the plugin runs git answers every call with a typed result: also a call git cannot
// even be started for, and one whose stdin git leaves unread.
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { git } from "../../src/git/run.js"
import { tempDirs } from "../temp-dirs.js"

const tmp = tempDirs()
const ARG_MAX = Number(execFileSync("getconf", ["ARG_MAX"], { encoding: "utf8" }).trim()) || 2 * 1024 * 1024

describe("git()", () => {
  it("a command line past the system's limit (E2BIG) is a failure it says, never a rejection", async () => {
    const dir = tmp("git-run-")
    const paths = Array.from(
      { length: Math.ceil((ARG_MAX * 1.5) / 1000) },
      (_, i) => `${String(i).padStart(6, "0")}${"x".repeat(994)}`,
    )
    expect(await git(dir, ["ls-files", "--", ...paths])).toEqual({
      ok: false,
      code: undefined,
      stdout: "",
      stderr: "",
      reason: "its command line is longer than the system allows",
    })
  })

  it("stdin git does not read before it exits is no error of the process", async () => {
    const dir = tmp("git-run-")
    const result = await git(dir, ["--version"], { input: "x".repeat(16 * 1024 * 1024) })
    expect(result).toMatchObject({ ok: true, stdout: expect.stringMatching(/^git version/) })
  })

  it("starts git on a later turn of the event loop, never inside the caller's (an event hook's) turn", async () => {
    const processes = () => process.getActiveResourcesInfo().filter((r) => r === "ProcessWrap").length
    const before = processes()
    const running = git(tmp("git-run-"), ["--version"])
    expect(processes()).toBe(before)
    expect(await running).toMatchObject({ ok: true, stdout: expect.stringMatching(/^git version/) })
  })
})
