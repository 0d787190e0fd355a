// summaryPath and session-derived file names can never write outside the project: `..`, absolute
// paths and symlinks that point out are refused.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { loadSettings } from "../../src/config/load.js"
import { writeFileAtomic } from "../../src/files/atomic.js"
import { LoopStore } from "../../src/store/loop-store.js"
import { sessionDir, writeSummary } from "../../src/store/session-files.js"
import { loop } from "./fixtures.js"
import { tempDirs } from "../temp-dirs.js"

const tempDir = tempDirs()

const fresh = () => {
  const root = tempDir("ralph-paths-")
  const project = join(root, "project")
  const outside = join(root, "outside")
  mkdirSync(project)
  mkdirSync(outside)
  return { project, outside }
}
const record = (sessionID: string, summaryPath = ".opencode/sessions/") => ({
  loop: loop({}, { summaryPath }),
  sessionID,
  nextIteration: 2,
  summary: "s",
  source: "model" as const,
  at: new Date(0),
})

describe("paths", () => {
  it("summaryPath with .. or an absolute path falls back to the default, with a message", () => {
    for (const summaryPath of ["..", "../x", "/tmp/x", "a/../../x"]) {
      const { settings, problems } = loadSettings({ directory: fresh().project, options: { summaryPath } })
      expect(settings.summaryPath).toBe(".opencode/sessions/")
      expect(problems[0]?.message).toContain("points outside the project")
    }
  })

  it("session ids that are not plain ids never become file names", () => {
    for (const id of ["../x", "a/b", "..", "", "x".repeat(200), "a\u0000b"])
      expect(() => sessionDir("/p", ".opencode/sessions", id)).toThrow()
  })

  it("a symlinked summary folder that points outside the project is refused; nothing is written there", async () => {
    const { project, outside } = fresh()
    mkdirSync(join(project, ".opencode"))
    symlinkSync(outside, join(project, ".opencode", "sessions"))
    await expect(writeSummary(project, record("ses_1"))).rejects.toThrow(/leads outside/)
    expect(readdirSync(outside)).toEqual([])
  })

  it("a summary file that is a symlink to a file outside is replaced, not written through", async () => {
    const { project, outside } = fresh()
    const victim = join(outside, "victim.txt")
    writeFileSync(victim, "keep me")
    mkdirSync(join(project, ".opencode/sessions/ses_1"), { recursive: true })
    symlinkSync(victim, join(project, ".opencode/sessions/ses_1/ralph_summary.md"))
    await writeSummary(project, record("ses_1"))
    expect(readFileSync(victim, "utf8")).toBe("keep me")
    expect(readFileSync(join(project, ".opencode/sessions/ses_1/ralph_summary.md"), "utf8")).toContain(
      "# Ralph summary",
    )
  })

  it("the state folder and the journal refuse symlinks that lead out", async () => {
    const { project, outside } = fresh()
    mkdirSync(join(project, ".opencode"))
    symlinkSync(outside, join(project, ".opencode", "ralph-loop"))
    await expect(new LoopStore(project).save(loop(), "started", 0)).rejects.toThrow(/outside/)
    expect(readdirSync(outside)).toEqual([])

    const second = fresh()
    const store = new LoopStore(second.project)
    await store.save(loop(), "started", 0)
    const journal = join(second.project, ".opencode/ralph-loop/journal.jsonl")
    const target = join(second.outside, "journal.jsonl")
    writeFileSync(target, "")
    const { rmSync } = await import("node:fs")
    rmSync(journal)
    symlinkSync(target, journal)
    await expect(store.save(loop(), "decided", 1)).rejects.toThrow(/symlink/)
    expect(readFileSync(target, "utf8")).toBe("")
  })

  it("a plain write inside the project works, also into new folders", async () => {
    const { project } = fresh()
    await writeFileAtomic(join(project, "a/b/c.txt"), "x", project)
    expect(existsSync(join(project, "a/b/c.txt"))).toBe(true)
  })
})
