import { describe, expect, it } from "vitest"
import { parseRalphArgs } from "../../src/commands/ralph-args.js"
import { parseRunArgs, ralphLine } from "../../src/cli/run/args.js"

const parse = (...argv: string[]) => parseRunArgs(argv, "/work/p")

describe("ralph-loop run's arguments", () => {
  it("takes the runner's options anywhere before --, and gives the rest to /ralph as its argument line", () => {
    const args = parse(
      "build the widget",
      "--json",
      "--max-iterations",
      "5",
      "--model",
      "mock/big",
      "--auto-approve",
      "--project=sub",
    )
    expect(args).toMatchObject({
      project: "/work/p/sub",
      json: true,
      autoApprove: true,
      model: "mock/big",
      ralph: "--max-iterations 5 -- build the widget",
      onInterrupt: "pause",
      requireVerified: false,
    })
    expect(parse("--require-verified", "build it")).toMatchObject({ requireVerified: true, ralph: "-- build it" })
    const ralph = parseRalphArgs((args as { ralph: string }).ralph)
    expect(ralph).toMatchObject({ ok: true, task: "build the widget", overrides: { maxIterations: 5 } })
  })

  it("after --, every word is /ralph's — its flags still work, and a runner option is a task word", () => {
    const args = parse("--verbose", "--", "fix", "--json", "output")
    expect(args).toMatchObject({ verbose: true, json: false, ralph: "--json -- fix output" })
    expect(parse("--", "fix it", "--max-iterations", "3")).toMatchObject({
      ralph: "--max-iterations 3 -- fix it",
      json: false,
    })
  })

  it("quotes a flag's value with spaces, and gives the task's words after /ralph's -- as written", () => {
    const line = ralphLine(["run the tests", "--check", "npm test", "'90s", "style", '--check=npm run "lint"'])
    expect(line).toBe(`--check "npm test" --check="npm run \\"lint\\"" -- run the tests '90s style`)
    expect(parseRalphArgs(line)).toMatchObject({
      ok: true,
      task: `run the tests '90s style`,
      overrides: {
        checks: [
          expect.objectContaining({ command: "npm test" }),
          expect.objectContaining({ command: 'npm run "lint"' }),
        ],
      },
    })
  })

  it("a task holding words that start with -- reaches /ralph whole (one quoted shell word, after the runner's -- or not)", () => {
    for (const argv of [
      ["--", "fix the --verbose flag handling"],
      ["fix the --verbose flag handling"],
      ["--max-iterations", "3", "--", "fix the --verbose flag handling"],
    ]) {
      const args = parse(...argv) as { ralph: string }
      expect(parseRalphArgs(args.ralph)).toMatchObject({ ok: true, task: "fix the --verbose flag handling" })
    }
    expect(
      parseRalphArgs((parse("--", "--prd", "plan.json", "--story", "s1") as { ralph: string }).ralph),
    ).toMatchObject({ ok: true, task: "", prd: "plan.json", story: "s1" })
    expect(parseRalphArgs((parse("build it", "--prd", "--tests-pass") as { ralph: string }).ralph)).toMatchObject({
      ok: true,
      task: "build it",
      prd: true,
      overrides: { testsPass: true },
    })
    // /ralph's own -- after the runner's: the rest is the task.
    expect(
      parseRalphArgs((parse("--", "--tests-pass", "--", "--weird", "task") as { ralph: string }).ralph),
    ).toMatchObject({ ok: true, task: "--weird task", overrides: { testsPass: true } })
  })

  it("--resume takes an optional loop id, and no task", () => {
    expect(parse("--resume")).toMatchObject({ resume: "", ralph: "" })
    expect(parse("--resume", "ses_abc", "--json")).toMatchObject({ resume: "ses_abc", json: true })
    expect(parse("--resume", "--json")).toMatchObject({ resume: "", json: true })
    expect(parse("--resume", "ses_abc", "more")).toEqual({ error: expect.stringContaining("--resume") })
  })

  it("refuses what cannot run: no task, bad values, both --attach and --opencode", () => {
    expect(parse()).toEqual({ error: expect.stringContaining("needs a task") })
    expect(parse("--json")).toEqual({ error: expect.stringContaining("needs a task") })
    expect(parse("x", "--on-interrupt", "stop")).toEqual({ error: expect.stringContaining("--on-interrupt") })
    expect(parse("x", "--model", "gpt")).toEqual({ error: expect.stringContaining("PROVIDER/MODEL") })
    expect(parse("x", "--attach", "localhost")).toEqual({ error: expect.stringContaining("--attach") })
    expect(parse("x", "--attach", "http://127.0.0.1:4096/", "--opencode", "/bin/oc")).toEqual({
      error: expect.stringContaining("exclude"),
    })
    expect(parse("x", "--project")).toEqual({ error: "--project needs a value" })
    expect(parse("x", "--attach", "http://127.0.0.1:4096/")).toMatchObject({ attach: "http://127.0.0.1:4096" })
  })
})
