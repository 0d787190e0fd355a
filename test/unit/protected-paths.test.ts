import { describe, expect, it } from "vitest"
import { resolve } from "node:path"
import { refusal } from "../../src/loop/protected-paths.js"

const area = { directory: "/p", folders: [".opencode/ralph-loop", ".opencode/sessions"] }

describe("protected paths", () => {
  it("refuses writes and edits inside the loop's folders, relative or absolute", () => {
    expect(refusal("write", { filePath: ".opencode/ralph-loop/loops/x.json", content: "{}" }, area)).toMatch(/refused/)
    expect(refusal("edit", { filePath: "/p/.opencode/sessions/ses_1/ralph_summary.md" }, area)).toMatch(/refused/)
    expect(
      refusal(
        "patch",
        { patchText: "*** Begin Patch\n*** Delete File: .opencode/ralph-loop/journal.jsonl\n*** End Patch" },
        area,
      ),
    ).toMatch(/refused/)
    // The project memory is the loop's own file too: the model adds to it through <remember> tags.
    expect(refusal("write", { filePath: ".opencode/ralph-loop/memory.md", content: "" }, area)).toMatch(/refused/)
    expect(refusal("bash", { command: "rm .opencode/ralph-loop/memory.md" }, area)).toMatch(
      /belongs to the running Ralph loop/,
    )
  })

  it("allows the project's other files, including other .opencode files", () => {
    expect(refusal("write", { filePath: "src/a.ts" }, area)).toBeUndefined()
    expect(refusal("edit", { filePath: ".opencode/agent/x.md" }, area)).toBeUndefined()
    expect(refusal("write", { filePath: "../p2/.opencode/ralph-loop/x" }, area)).toBeUndefined()
  })

  it("refuses shell commands that would delete or rewrite them", () => {
    for (const command of [
      "rm -rf .opencode/ralph-loop",
      "rm -rf .opencode",
      "rm -rf ./.opencode/ralph-loop/",
      'cd /p && rm -rf "/p/.opencode/sessions"',
      "echo {} > .opencode/ralph-loop/loops/a.json",
      "mv .opencode/ralph-loop /tmp/x",
      "find .opencode/ralph-loop -delete",
      "git clean -fdx",
      "sed -i s/a/b/ .opencode/sessions/ses_1/ralph_summary.md",
    ])
      expect(refusal("bash", { command }, area), command).toBeDefined()
  })

  it("lets reading and unrelated commands through", () => {
    for (const command of [
      "cat .opencode/sessions/ses_1/ralph_summary.md",
      "ls -la .opencode/ralph-loop",
      "rm -rf dist",
      "git clean -fd",
      "npm test > out.txt",
    ])
      expect(refusal("bash", { command }, area), command).toBeUndefined()
    expect(refusal("read", { filePath: ".opencode/ralph-loop/loops/x.json" }, area)).toBeUndefined()
  })
})

describe("protected paths: the loops' session folders, looked up by name", () => {
  // Two loops: one with its id and an earlier session, one keeping its summaries elsewhere.
  const loops = [
    { id: "ses_a", lineage: ["ses_b"], summaryPath: ".opencode/sessions/" },
    { id: "ses_c", lineage: [], summaryPath: "notes" },
  ]
  const listed = {
    directory: "/p",
    folders: [
      ".opencode/ralph-loop",
      ...loops.flatMap((l) => [l.id, ...l.lineage].map((id) => `${l.summaryPath}/${id}`)),
    ],
  }
  const byName = {
    directory: "/p",
    folders: [".opencode/ralph-loop"],
    sessionFolderParents: (name: string) =>
      loops.filter((l) => l.id === name || l.lineage.includes(name)).map((l) => resolve("/p", l.summaryPath)),
  }
  const calls: Array<[string, Record<string, string>]> = []
  for (const path of [
    ".opencode/sessions/ses_a/ralph_summary.md",
    "/p/.opencode/sessions/ses_b",
    "./.opencode/sessions/ses_b/",
    "notes/ses_c/x.md",
    "notes/ses_a/x.md", // ses_a keeps its folder in .opencode/sessions, not in notes
    ".opencode/sessions/ses_c/x.md",
    ".opencode/sessions/ses_d/x.md",
    ".opencode/sessions",
    "ses_a/ses_a",
    "/ses_a",
    "/p/.opencode/sessions/ses_a/../ses_d/x",
    "/p/.opencode/sessions/ses_d/../ses_a/x",
    ".opencode/sessions/ses_a*",
    "/",
  ]) {
    calls.push(["write", { filePath: path }], ["bash", { command: `rm -rf ${path}` }])
  }

  it("refuses exactly what the list of every loop's folders refused", () => {
    const refused = calls.filter(([tool, args]) => refusal(tool, args, listed) !== undefined)
    expect(refused.length).toBeGreaterThan(10)
    for (const [tool, args] of calls)
      expect(refusal(tool, args, byName), JSON.stringify(args)).toBe(refusal(tool, args, listed))
  })

  it("finds a session folder right below the root", () => {
    const atRoot = {
      directory: "/",
      folders: [],
      sessionFolderParents: (name: string) => (name === "ses_a" ? ["/"] : []),
    }
    expect(refusal("write", { filePath: "/ses_a/x" }, atRoot)).toMatch(/refused/)
    expect(refusal("write", { filePath: "/ses_b/ses_a" }, atRoot)).toBeUndefined()
  })
})
