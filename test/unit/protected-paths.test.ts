import { describe, expect, it } from "vitest"
import { refusal } from "../../src/loop/protected-paths.js"

const area = { directory: "/p", folders: [".opencode/ralph-loop", ".opencode/sessions"] }

describe("protected paths", () => {
  it("refuses writes and edits inside the loop's folders, relative or absolute", () => {
    expect(refusal("write", { filePath: ".opencode/ralph-loop/loops/x.json", content: "{}" }, area)).toMatch(/refused/)
    expect(refusal("edit", { filePath: "/p/.opencode/sessions/ses_1/ralph_summary.md" }, area)).toMatch(/refused/)
    expect(refusal("patch", { patchText: "*** Begin Patch\n*** Delete File: .opencode/ralph-loop/journal.jsonl\n*** End Patch" }, area)).toMatch(/refused/)
    // The project memory is the loop's own file too: the model adds to it through <remember> tags.
    expect(refusal("write", { filePath: ".opencode/ralph-loop/memory.md", content: "" }, area)).toMatch(/refused/)
    expect(refusal("bash", { command: "rm .opencode/ralph-loop/memory.md" }, area)).toMatch(/belongs to the running Ralph loop/)
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
    for (const command of ["cat .opencode/sessions/ses_1/ralph_summary.md", "ls -la .opencode/ralph-loop", "rm -rf dist", "git clean -fd", "npm test > out.txt"])
      expect(refusal("bash", { command }, area), command).toBeUndefined()
    expect(refusal("read", { filePath: ".opencode/ralph-loop/loops/x.json" }, area)).toBeUndefined()
  })
})
