// `ralph-loop run --model` and `--verbose`: the model for this run only (the user's config file is
// not rewritten), and the model's texts as lines.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
import { runSetup, startRun } from "./run-helpers.js"

const setup = runSetup()

describe("ralph-loop run: --model and --verbose", () => {
  it("--model overrides the config's model for every turn of the loop, and opencode.json stays as it was; --verbose prints the model's texts", async () => {
    const project = setup().project("run-model", {
      models: ["other-model"],
      script: { main: [{ text: "working on it" }, { text: "All finished. <promise>DONE</promise>" }] },
    })
    const config = readFileSync(join(project, "opencode.json"), "utf8")
    const run = startRun(setup(), project, ["build it", "--model", "mock/other-model", "--verbose"])
    expect(await run.exit(), run.stderr()).toBe(EXIT.completed)
    const main = setup().requests("run-model", "main")
    expect(main.map((r) => r.body.model)).toEqual(["other-model", "other-model"])
    expect(
      setup()
        .requests("run-model", "compaction")
        .every((r) => r.body.model === "other-model"),
    ).toBe(true)
    expect(readFileSync(join(project, "opencode.json"), "utf8")).toBe(config)
    expect(run.lines().filter((l) => l.startsWith("model: "))).toEqual([
      "model: working on it",
      "model: All finished. <promise>DONE</promise>",
    ])
  })
})
