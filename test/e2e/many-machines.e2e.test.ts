// A plan over many machines, on this one: a bare repository stands in for the remote and clones for
// CI runners. Two runners each run one ready story with `ralph-loop run --prd plan.json --story ID`
// (the real `opencode serve` each run starts, the scripted model) at the same time, and push its
// branch; a third fetches, runs `ralph-loop plan merge`, commits the plan and pushes, and `plan
// ready` then lists the story that depended on both; a fourth run completes it, and the last merge
// leaves every story done.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { EXIT } from "../../src/cli/run/exit-code.js"
import type { MockRequest, Reply } from "../harness/mock-model.js"
import { opencodeBinary, seedConfigDir } from "../harness/opencode-server.js"
import { planCommands, STORY_BRANCH_PUSH } from "./many-machines-commands.js"
import { alive, CLI, runSetup, serverPid, startRun } from "./run-helpers.js"

const setup = runSetup()

/** A folder with `opencode` in it, for the runners' PATH (`ralph-loop install` runs `opencode plugin`). */
function opencodeOnPath(): string {
  const dir = join(setup().root, "bin")
  if (!existsSync(dir)) {
    mkdirSync(dir)
    symlinkSync(opencodeBinary(), join(dir, "opencode"))
  }
  return dir
}

const env = () => ({
  ...setup().env,
  PATH: `${opencodeOnPath()}:${setup().env.PATH}`,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "CI",
  GIT_AUTHOR_EMAIL: "ci@example.invalid",
  GIT_COMMITTER_NAME: "CI",
  GIT_COMMITTER_EMAIL: "ci@example.invalid",
})
/**
 * What a runner has of its own, as a CI machine does: OpenCode's data folder (its database). Two
 * `opencode serve` starting at once on one fresh data folder race on its migrations, and one exits 1
 * (docs/opencode-notes.md).
 */
const machine = (runner: string) => ({ XDG_DATA_HOME: join(setup().root, "machines", runner, "data") })
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, env: env(), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

function cli(cwd: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return cliOn({}, cwd, ...args)
}

function cliOn(
  own: Record<string, string>,
  cwd: string,
  ...args: string[]
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...env(), ...own },
    encoding: "utf8",
    timeout: 120_000,
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

const PLAN = `{
  "project": "many machines",
  "userStories": [
    { "id": "s1", "title": "one", "acceptanceCriteria": ["s1.txt exists"], "priority": 1, "passes": false },
    { "id": "s2", "title": "two", "acceptanceCriteria": ["s2.txt exists"], "priority": 2, "passes": false },
    { "id": "s3", "title": "three", "acceptanceCriteria": ["s3.txt exists"], "priority": 3, "passes": false, "dependsOn": ["s1", "s2"] }
  ]
}
`

/** The story the prompt names writes <id>.txt, then keeps the promise. */
function storyScript(r: MockRequest): Reply {
  if (r.lastUser.startsWith("[ralph-loop control]")) return { text: "OK" }
  const id = /^## Current story: (\S+)/m.exec(r.lastUser)?.[1]
  if (!id) return { text: "nothing to do" }
  if (r.lastRole === "tool") return { text: `Story ${id} is done. <promise>DONE</promise>` }
  return {
    toolCalls: [{ name: "bash", args: { command: `printf '${id}\\n' > ${id}.txt`, description: `Story ${id}` } }],
  }
}

/**
 * A CI runner, as docs/headless.md's story job: a fresh clone of the remote, `ralph-loop install
 * --project .` and `ralph-loop run --prd plan.json --story ID` in it, its branch pushed.
 */
async function runStory(remote: string, runner: string, story: string): Promise<string> {
  const dir = join(setup().root, "projects", runner)
  git(setup().root, "clone", "-q", remote, dir)
  // The OpenCode config (the scripted model) and what install writes (the plugin's listing) go into
  // the clone: untracked files of the runner's, never in the story's commit.
  setup().project(runner, {
    withPlugin: false,
    configFile: '{ "strategy": "continue" }\n',
    script: { main: storyScript },
  })
  const installed = cliOn(machine(runner), dir, ...planCommands.install)
  expect(installed.status, `${installed.stdout}\n${installed.stderr}`).toBe(0)
  // `opencode plugin` leaves .opencode/ a config folder OpenCode would npm-install into at its start.
  seedConfigDir(join(dir, ".opencode"))
  const run = startRun(setup(), dir, planCommands.story("plan.json", story).slice(1), { env: machine(runner) })
  const code = await run.exit(300_000)
  expect(code, `${run.lines().join("\n")}\n${run.stderr()}`).toBe(EXIT.completed)
  expect(alive(serverPid(run.lines()) as number)).toBe(false)
  // Every prompt of the run was about its story.
  const stories = setup()
    .requests(runner, "main")
    .map((r) => /^## Current story: (\S+)/m.exec(r.lastUser)?.[1])
    .filter(Boolean)
  expect(new Set(stories)).toEqual(new Set([story]))
  git(dir, ...STORY_BRANCH_PUSH)
  return dir
}

describe("a plan over many machines", () => {
  it("two runners push a story each with ralph-loop run, a third merges them and s3 is ready; a fourth run completes s3 and the plan is done", async () => {
    const root = setup().root
    const seed = join(root, "seed")
    mkdirSync(seed)
    git(seed, "init", "-q", "-b", "main")
    writeFileSync(join(seed, "plan.json"), PLAN)
    writeFileSync(join(seed, "app.txt"), "the app\n")
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", "the plan")
    const remote = join(root, "remote.git")
    git(root, "clone", "-q", "--bare", seed, remote)

    expect(cli(seed, ...planCommands.ready("plan.json"))).toMatchObject({ status: 0, stdout: "s1\ns2\n" })
    const [a] = await Promise.all([runStory(remote, "runner-a", "s1"), runStory(remote, "runner-b", "s2")])
    expect(git(remote, "for-each-ref", "--format=%(refname:short)", "refs/heads/").split("\n").sort()).toEqual([
      "main",
      "ralph/story-s1",
      "ralph/story-s2",
    ])
    expect(git(remote, "show", "--name-only", "--format=", "ralph/story-s1")).toBe("s1.txt")
    expect(git(remote, "show", "--name-only", "--format=", "ralph/story-s2")).toBe("s2.txt")
    // The runner's checkout is as it was: main at the plan's commit, the plan file untouched.
    expect(git(a as string, "rev-parse", "HEAD")).toBe(git(remote, "rev-parse", "main"))
    expect(readFileSync(join(a as string, "plan.json"), "utf8")).toBe(PLAN)

    // s3 is not ready yet on a runner that has not merged: the run is refused with the reason, exit 2.
    const early = startRun(setup(), a as string, planCommands.story("plan.json", "s3").slice(1))
    expect(await early.exit(300_000)).toBe(EXIT.usage)
    expect(`${early.lines().join("\n")}\n${early.stderr()}`).toContain(
      "story s3 is not ready: it depends on s1, s2, not done in plan.json",
    )

    const merger = join(root, "runner-c")
    git(root, "clone", "-q", remote, merger)
    const merged = cli(merger, ...planCommands.merge("plan.json"))
    expect(merged).toEqual({
      status: 0,
      stdout: [
        "origin/ralph/story-s1: merged into main (story s1: one)",
        "origin/ralph/story-s2: merged into main (story s2: two)",
        "plan.json: marked done: s1, s2 (not committed: commit plan.json)",
        "ready now: s3",
        "",
      ].join("\n"),
      stderr: "",
    })
    git(merger, "commit", "-q", "-m", "plan: stories merged", "--", "plan.json")
    git(merger, "push", "-q", "origin", "HEAD")
    expect(cli(merger, ...planCommands.ready("plan.json"))).toMatchObject({ status: 0, stdout: "s3\n" })
    expect(JSON.parse(cli(merger, ...planCommands.ready("plan.json"), "--json").stdout)).toEqual({
      stories: ["s3"],
      done: ["s1", "s2"],
      left: 1,
    })

    await runStory(remote, "runner-d", "s3")
    expect(git(remote, "show", "--name-only", "--format=", "ralph/story-s3")).toBe("s3.txt")
    git(merger, "fetch", "-q", "origin")
    expect(cli(merger, ...planCommands.merge("plan.json"))).toEqual({
      status: 0,
      stdout: [
        "origin/ralph/story-s3: merged into main (story s3: three)",
        "plan.json: marked done: s3 (not committed: commit plan.json)",
        "every story of plan.json is done (3)",
        "",
      ].join("\n"),
      stderr: "",
    })
    expect(["s1.txt", "s2.txt", "s3.txt"].map((f) => readFileSync(join(merger, f), "utf8"))).toEqual([
      "s1\n",
      "s2\n",
      "s3\n",
    ])
    expect(
      JSON.parse(readFileSync(join(merger, "plan.json"), "utf8")).userStories.map((s: { passes: boolean }) => s.passes),
    ).toEqual([true, true, true])
    expect(cli(merger, ...planCommands.ready("plan.json"), "--json").stdout).toBe(
      '{"stories":[],"done":["s1","s2","s3"],"left":0}\n',
    )
    // Three whole `ralph-loop run`s (each its own OpenCode start) and three merges: 150 s on a loaded
    // 2-core machine, past the suite's 120 s default for one test.
  }, 400_000)
})
