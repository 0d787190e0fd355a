// docs/headless.md's GitHub Actions workflow and plain-shell flow run the very commands
// many-machines.e2e.test.ts runs (test/e2e/many-machines-commands.ts holds them for both), install
// ralph-loop from somewhere that is ralph-loop, and list the plugin on each runner rather than
// committing a machine's own `file:` spec. The write token never reaches the agent, a `plan ready`
// that fails fails its step, and a cancelled run merges nothing.
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { planCommands, STORY_BRANCH_PUSH } from "../e2e/many-machines-commands.js"
import { packageDir } from "../harness/harness.js"

const doc = readFileSync(join(packageDir(), "docs/headless.md"), "utf8")

/** The fenced blocks (of `lang`) of the section under `heading`, up to the next heading outside a block. */
function blocks(heading: string, lang: string): string[] {
  const lines = doc.split("\n")
  const found: string[] = []
  let block: string[] | undefined
  let fence: string | undefined
  for (const line of lines.slice(lines.indexOf(heading) + 1)) {
    if (fence === undefined && /^#{1,6} /.test(line)) break
    if (line.startsWith("```")) {
      if (fence === undefined) fence = line.slice(3)
      else {
        if (fence === lang && block) found.push(`${block.join("\n")}\n`)
        fence = undefined
      }
      block = []
    } else block?.push(line)
  }
  if (!lines.includes(heading)) throw new Error(`docs/headless.md has no heading ${heading}`)
  return found
}

/** A block's text with continued lines (`\` at the end) joined and comments dropped. */
const commands = (text: string) =>
  text
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.replace(/\s+# .*$/, "").trim())
    .join("\n")

/** Words as a shell line spells them: a word with a glob character single-quoted. */
const shell = (words: readonly string[]) => words.map((w) => (/^[\w@%+=:,./"$-]+$/.test(w) ? w : `'${w}'`)).join(" ")
const ralphLoop = (words: readonly string[]) => `ralph-loop ${shell(words)}`
const push = `git ${shell(STORY_BRANCH_PUSH)}`
/** The workflow pushes to the repository's URL with the token its step alone is given (its checkout keeps none). */
const TOKEN_REMOTE = '"https://x-access-token:$GH_TOKEN@${GITHUB_SERVER_URL#https://}/$GITHUB_REPOSITORY.git"'
/** The token, as a workflow spells it. */
const TOKEN = /\$\{\{\s*(?:github\.token|secrets\.GITHUB_TOKEN)\s*\}\}/

/** The workflow's jobs by name, as commands: the lines under `jobs:` from one `  name:` to the next. */
const jobs = (yaml: string): Record<string, string> =>
  Object.fromEntries(Object.entries(rawJobs(yaml)).map(([name, job]) => [name, commands(job)]))

interface Step {
  uses?: string
  run?: string
  if?: string
  with: Record<string, string>
  env: Record<string, string>
}

/** A `key: value` line's parts, a trailing ` # comment` dropped. */
function keyValue(line: string): [string, string] {
  const colon = line.indexOf(":")
  return [
    line.slice(0, colon).trim(),
    line
      .slice(colon + 1)
      .replace(/\s+# .*$/, "")
      .trim(),
  ]
}

/**
 * The steps of a job (its lines under `jobs:`), as this doc writes them: `- key: value` then keys at
 * the step's indent; `run: |` (lines kept) and `run: >-` (lines joined by spaces); `with:` and
 * `env:` as `{ a: b, c: d }` or one `key: value` a line. Comment lines are dropped.
 */
function steps(job: string): Step[] {
  const lines = job.split("\n").filter((line) => !/^\s*#/.test(line))
  const found: Step[] = []
  let step: Step | undefined
  let block: { key: string; indent: number; lines: string[]; fold: boolean } | undefined
  const close = () => {
    if (block && step) {
      const text = block.fold
        ? block.lines.map((l) => l.trim()).join(" ")
        : block.lines.map((l) => l.slice(block!.indent)).join("\n")
      if (block.key === "run") step.run = text
      else
        for (const line of block.lines)
          (step[block.key as "env" | "with"] as Record<string, string>)[keyValue(line)[0]] = keyValue(line)[1]
    }
    block = undefined
  }
  for (const line of lines) {
    const indent = line.length - line.trimStart().length
    if (block && (indent >= block.indent || !line.trim())) {
      if (line.trim()) block.lines.push(line)
      continue
    }
    close()
    if (/^ {6}- /.test(line)) {
      step = { with: {}, env: {} }
      found.push(step)
    } else if (indent < 8) {
      step = undefined
      continue
    }
    if (!step) continue
    const [key, value] = keyValue(line.replace(/^ {6}- /, "        "))
    if (key === "run" && (value === "|" || value === ">-")) block = { key, indent: 10, lines: [], fold: value === ">-" }
    else if ((key === "env" || key === "with") && value === "") block = { key, indent: 10, lines: [], fold: false }
    else if ((key === "env" || key === "with") && value.startsWith("{"))
      for (const pair of value.slice(1, -1).split(",")) step[key][keyValue(pair)[0]] = keyValue(pair)[1]
    else if (key === "run" || key === "uses" || key === "if") step[key] = value
  }
  close()
  return found
}

/** The raw text of each job of the workflow: its lines from `  name:` to the next job. */
function rawJobs(yaml: string): Record<string, string> {
  const found: Record<string, string> = {}
  const body = yaml.slice(yaml.indexOf("\njobs:\n"))
  for (const m of body.matchAll(/^ {2}([\w-]+):\n((?:(?: {4}.*)?\n)*)/gm)) found[m[1] as string] = m[2] as string
  return found
}

/**
 * Each line of a shell text that takes ralph-loop's output by `$(…)` without checking its status
 * on that line (`x=$(ralph-loop …) || exit`): inside `echo "…$(…)"` a failure is the echo's success.
 */
function uncheckedOutputs(text: string): string[] {
  return commands(text)
    .split("\n")
    .filter((line) => line.includes("$(ralph-loop") && !/^\w+=\$\(ralph-loop [^()]*\) \|\| exit\b/.test(line))
}

/** Where `needle` is in `text`, failing the test when it is not there. */
function at(text: string, needle: string): number {
  const index = text.indexOf(needle)
  expect(index, `expected ${JSON.stringify(needle)} in:\n${text}`).toBeGreaterThanOrEqual(0)
  return index
}

/** Every argument of an `npm install`/`npm i`/`npx` line that would fetch the npm registry's unrelated `ralph-loop`. */
function bareNames(text: string): string[] {
  const found: string[] = []
  for (const line of commands(text).split("\n")) {
    const npm = /\b(?:npm\s+(?:install|i|add)|npx|bunx|pnpm\s+add|yarn\s+(?:global\s+)?add)\s+(.*)$/.exec(line)
    for (const word of npm?.[1]?.split(/\s+/) ?? [])
      if (/^["']?ralph-loop(?:@[\w.^~<>=-]*)?["']?$/.test(word)) found.push(line)
  }
  return found
}

describe("docs/headless.md: a plan over many machines", () => {
  const [workflow, ...extraYaml] = blocks("### GitHub Actions", "yaml")
  const [runner, round, ...extraShell] = blocks("### The same flow as plain shell", "sh")

  it("has one workflow and the two shell blocks (a runner's, the round's)", () => {
    expect(workflow).toBeDefined()
    expect(runner).toBeDefined()
    expect(round).toBeDefined()
    expect([...extraYaml, ...extraShell]).toEqual([])
  })

  it("the workflow's jobs run the e2e's commands: ready lists as JSON, each story job installs, runs its story and pushes its branch, merge merges", () => {
    const job = jobs(workflow as string)
    expect(Object.keys(job)).toEqual(["ready", "story", "merge"])
    at(job.ready as string, `${ralphLoop(planCommands.ready('"$PLAN"'))} --json`)
    const story = job.story as string
    const install = at(story, `run: ${ralphLoop(planCommands.install)}\n`)
    const run = at(story, `run: ${ralphLoop(planCommands.story('"$PLAN"', '"$STORY"'))}`)
    expect(install).toBeLessThan(run)
    expect(story).toContain("STORY: ${{ matrix.story }}")
    // The e2e's push, to the repository's URL with the token in place of origin, in a step after the run.
    const storySteps = steps(rawJobs(workflow as string).story as string)
    const runStep = storySteps.findIndex((s) => s.run?.startsWith("ralph-loop run "))
    const pushStep = storySteps.findIndex((s) => s.run === push.replace(" origin ", ` ${TOKEN_REMOTE} `))
    expect(pushStep, JSON.stringify(storySteps, null, 2)).toBeGreaterThan(runStep)
    expect(runStep).toBeGreaterThan(0)
    const merge = job.merge as string
    expect(at(merge, ralphLoop(planCommands.merge('"$PLAN"')))).toBeLessThan(
      at(merge, `${ralphLoop(planCommands.ready('"$PLAN"'))} --json`),
    )
  })

  it("the shell flow runs the same commands: a runner installs, runs its story and pushes; the round lists, fetches and merges", () => {
    const one = commands(runner as string)
    expect(at(one, ralphLoop(planCommands.install))).toBeLessThan(
      at(one, ralphLoop(planCommands.story("plan.json", '"$ID"'))),
    )
    expect(at(one, ralphLoop(planCommands.story("plan.json", '"$ID"')))).toBeLessThan(
      at(one, push.replace(" origin ", ' "$PUSH_URL" ')),
    )
    const all = commands(round as string)
    expect(at(all, ralphLoop(planCommands.ready("plan.json")))).toBeLessThan(at(all, "git fetch origin"))
    expect(at(all, "git fetch origin")).toBeLessThan(at(all, ralphLoop(planCommands.merge("plan.json"))))
  })

  it("installs ralph-loop from its package, never the npm registry's unrelated `ralph-loop`, and never commits a machine's plugin listing", () => {
    const texts = [workflow, runner, round] as string[]
    expect(texts.flatMap(bareNames)).toEqual([])
    // Every job that runs ralph-loop installs it from the package the workflow names.
    const job = jobs(workflow as string)
    for (const name of ["ready", "story", "merge"])
      expect(job[name]).toMatch(/^\s*- run: npm install -g (?:opencode-ai@[\d.]+ )?"\$RALPH_LOOP_PACKAGE"$/m)
    const source = /^ {2}RALPH_LOOP_PACKAGE: (\S+)$/m.exec(workflow as string)?.[1]
    expect(source).toMatch(/\.tgz$/)
    expect(bareNames(`npm install -g ${source}`)).toEqual([])
    expect(runner).toMatch(/^npm install -g opencode-ai@[\d.]+ "\$RALPH_LOOP_PACKAGE"/m)
    // Nothing tells a reader to commit the listing `ralph-loop install` writes.
    expect(texts.join("\n")).not.toMatch(/@file:|git add \.opencode|git commit[^\n]*\.opencode/)
  })

  it("the write token never reaches the agent: no checkout keeps it, only the steps that push (or start a round) get it", () => {
    const yaml = workflow as string
    const all = Object.entries(rawJobs(yaml))
    // Not at the workflow's or a job's level, where every step (the run's too) would have it.
    expect(yaml.slice(0, yaml.indexOf("\njobs:\n"))).not.toMatch(TOKEN)
    for (const [, job] of all) expect(job.slice(0, job.indexOf("\n    steps:\n"))).not.toMatch(TOKEN)
    const checkouts = all.flatMap(([name, job]) =>
      steps(job)
        .filter((s) => s.uses?.startsWith("actions/checkout@"))
        .map((s) => ({ name, with: s.with })),
    )
    expect(checkouts.map((c) => c.name)).toEqual(["ready", "story", "merge"])
    for (const checkout of checkouts) expect(checkout).toMatchObject({ with: { "persist-credentials": "false" } })
    for (const [name, job] of all)
      for (const step of steps(job)) {
        const given = Object.values(step.env).some((value) => TOKEN.test(value))
        // A step given the token runs no agent, and pushes with no hook or credential helper of the checkout's.
        if (given) expect({ name, run: step.run }).not.toMatchObject({ run: expect.stringMatching(/ralph-loop run\b/) })
        if (step.run?.startsWith("ralph-loop run "))
          expect({ name, env: Object.values(step.env).join(" ") }).not.toMatchObject({
            env: expect.stringMatching(TOKEN),
          })
        if (/\bgit push\b|\bpush --force\b/.test(step.run ?? ""))
          expect({ name, run: step.run, given }).toMatchObject({ given: true })
      }
    // The shell flow: cloned without credentials, the push given its own URL.
    expect(runner).toMatch(/^git clone "\$REMOTE" /m)
    expect(commands(runner as string)).not.toMatch(/ push [^\n]* origin /)
  })

  it("a failing plan ready fails its step: its output is never taken inside another command", () => {
    expect([workflow, runner, round].flatMap((text) => uncheckedOutputs(text as string))).toEqual([])
    const ready = steps(rawJobs(workflow as string).ready as string).find((s) => s.run?.includes("plan ready"))
    expect(ready?.run).toMatch(
      /^plan=\$\(ralph-loop plan ready "\$PLAN" --json\) \|\| exit 1\necho "plan=\$plan" >> "\$GITHUB_OUTPUT"$/,
    )
    // What the check catches.
    expect(uncheckedOutputs('echo "plan=$(ralph-loop plan ready "$PLAN" --json)" >> "$GITHUB_OUTPUT"')).toHaveLength(1)
    expect(uncheckedOutputs('next=$(ralph-loop plan ready "$PLAN" --json)')).toHaveLength(1)
    expect(uncheckedOutputs("set -o pipefail\nx=$(ralph-loop plan ready p) | tee y")).toHaveLength(1)
  })

  it("a cancelled run merges nothing: the merge job runs unless cancelled, never always()", () => {
    const yaml = workflow as string
    expect(yaml).not.toMatch(/\balways\(\)/)
    const merge = rawJobs(yaml).merge as string
    const condition = /^ {4}if: (.*)$/m.exec(merge)?.[1] ?? ""
    expect(condition).toMatch(/^\$\{\{ !cancelled\(\) && needs\.ready\.result == 'success' && /)
  })

  it("catches the bare npm name in any of the spellings a doc might use", () => {
    expect(bareNames("npm install -g opencode-ai@1.18.33 ralph-loop")).toHaveLength(1)
    expect(bareNames("npm i -g ralph-loop@0.1.0")).toHaveLength(1)
    expect(bareNames('npx "ralph-loop" run')).toHaveLength(1)
    expect(bareNames("npm install -g ./ci/ralph-loop-0.1.0.tgz ralph-loop-extra")).toEqual([])
  })
})
