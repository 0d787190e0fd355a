// docs/headless.md's GitHub Actions workflow and plain-shell flow run the very commands
// many-machines.e2e.test.ts runs (test/e2e/many-machines-commands.ts holds them for both), install
// ralph-loop from somewhere that is ralph-loop, and list the plugin on each runner rather than
// committing a machine's own `file:` spec.
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

/** The workflow's jobs by name: the lines under `jobs:` from one `  name:` to the next. */
function jobs(yaml: string): Record<string, string> {
  const found: Record<string, string> = {}
  const body = yaml.slice(yaml.indexOf("\njobs:\n"))
  for (const m of body.matchAll(/^ {2}([\w-]+):\n((?:(?: {4}.*)?\n)*)/gm)) found[m[1] as string] = commands(m[2] as string)
  return found
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
    for (const word of npm?.[1]?.split(/\s+/) ?? []) if (/^["']?ralph-loop(?:@[\w.^~<>=-]*)?["']?$/.test(word)) found.push(line)
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
    const pushed = at(story, `run: ${push}\n`)
    expect(install).toBeLessThan(run)
    expect(run).toBeLessThan(pushed)
    expect(story).toContain("STORY: ${{ matrix.story }}")
    const merge = job.merge as string
    expect(at(merge, ralphLoop(planCommands.merge('"$PLAN"')))).toBeLessThan(at(merge, `${ralphLoop(planCommands.ready('"$PLAN"'))} --json`))
  })

  it("the shell flow runs the same commands: a runner installs, runs its story and pushes; the round lists, fetches and merges", () => {
    const one = commands(runner as string)
    expect(at(one, ralphLoop(planCommands.install))).toBeLessThan(at(one, ralphLoop(planCommands.story("plan.json", '"$ID"'))))
    expect(at(one, ralphLoop(planCommands.story("plan.json", '"$ID"')))).toBeLessThan(at(one, push))
    const all = commands(round as string)
    expect(at(all, ralphLoop(planCommands.ready("plan.json")))).toBeLessThan(at(all, "git fetch origin"))
    expect(at(all, "git fetch origin")).toBeLessThan(at(all, ralphLoop(planCommands.merge("plan.json"))))
  })

  it("installs ralph-loop from its package, never the npm registry's unrelated `ralph-loop`, and never commits a machine's plugin listing", () => {
    const texts = [workflow, runner, round] as string[]
    expect(texts.flatMap(bareNames)).toEqual([])
    // Every job that runs ralph-loop installs it from the package the workflow names.
    const job = jobs(workflow as string)
    for (const name of ["ready", "story", "merge"]) expect(job[name]).toMatch(/^\s*- run: npm install -g (?:opencode-ai@[\d.]+ )?"\$RALPH_LOOP_PACKAGE"$/m)
    const source = /^ {2}RALPH_LOOP_PACKAGE: (\S+)$/m.exec(workflow as string)?.[1]
    expect(source).toMatch(/\.tgz$/)
    expect(bareNames(`npm install -g ${source}`)).toEqual([])
    expect(runner).toMatch(/^npm install -g opencode-ai@[\d.]+ "\$RALPH_LOOP_PACKAGE"/m)
    // Nothing tells a reader to commit the listing `ralph-loop install` writes.
    expect(texts.join("\n")).not.toMatch(/@file:|git add \.opencode|git commit[^\n]*\.opencode/)
  })

  it("catches the bare npm name in any of the spellings a doc might use", () => {
    expect(bareNames("npm install -g opencode-ai@1.18.33 ralph-loop")).toHaveLength(1)
    expect(bareNames("npm i -g ralph-loop@0.1.0")).toHaveLength(1)
    expect(bareNames('npx "ralph-loop" run')).toHaveLength(1)
    expect(bareNames("npm install -g ./ci/ralph-loop-0.1.0.tgz ralph-loop-extra")).toEqual([])
  })
})
