#!/usr/bin/env node
// Regenerates test/fixtures/weakenings/ (issue 46): the weakening corpus. For each runner, a small project with a
// bug and its tests (scripts/weakening-forms/<runner>/base/); each form (scripts/weakening-forms/<runner>/forms.mjs)
// is the START (the base with the form's start edits: the project with the bug and its tests, as the loop began)
// and the END (the start with the form's end edits: what a model left). The real runner runs the check's command
// on the END tree (what the loop's work-tree check saw: work.txt) and on the REPLAY tree of
// /work/notes/replay-spec.md (replay.txt), built here by scripts/weakening-forms/replay-rule.mjs, h-corpus's own
// reading of the rule; replay-tree.json records what that reading puts back, leaves out and merges.
//
//   node scripts/make-weakening-fixtures.mjs                 every runner (about 10 minutes on 2 busy cores)
//   node scripts/make-weakening-fixtures.mjs pytest go       some runners (each runner's folder is rewritten whole)
//   node scripts/make-weakening-fixtures.mjs --readme        only README.md, from the recorded forms
//
// A form that does not behave as its definition says (a weakening whose work-tree run fails, an honest form whose
// replay fails, a weakening the replay does not catch without a `limit` saying why) stops the script.
//
// Tools, pinned: vitest 4.1.12, jest 30.5.2, mocha 12.0.3 as devDependencies of the base projects (npm install
// --no-audit --no-fund there, done here when node_modules is missing; package-lock.json kept); node --test of
// Node 20; Debian bookworm's python3-pytest 7.2.1 (/usr/bin/python3 3.11) and golang-go 1.19
// (`apt-get install -y python3-pytest golang-go`); cargo 1.95.0 (rustup). VERSIONS below is checked at start.
import { execFileSync, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { planReplay } from "./weakening-forms/replay-rule.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const forms = join(root, "scripts", "weakening-forms")
const out = join(root, "test", "fixtures", "weakenings")
// Debian's python3 (with python3-pytest) ahead of any pyenv shim on PATH
const PYTHON_PATH = `/usr/bin:${process.env.PATH}`

/** Each runner: the check's command (a form may name its own), and the version its output must come from. */
const RUNNERS = {
  vitest: { command: "npx vitest run", version: "npx vitest --version", pinned: "vitest/4.1.12" },
  jest: { command: "npx jest", version: "npx jest --version", pinned: "30.5.2" },
  mocha: { command: "npx mocha", version: "npx mocha --version", pinned: "12.0.3" },
  "node-test": { command: "node --test", version: "node --version", pinned: "v20." },
  pytest: {
    command: "python3 -m pytest",
    version: "python3 -m pytest --version",
    pinned: "pytest 7.2.1",
    python: true,
  },
  unittest: { command: "python3 -m unittest", version: "python3 --version", pinned: "Python 3.11", python: true },
  go: { command: "go test ./...", version: "go version", pinned: "go1.19" },
  cargo: { command: "cargo test", version: "cargo --version", pinned: "cargo 1.95.0" },
}

const NOT_TREE = new Set(["node_modules", "target", "__pycache__", ".pytest_cache", "package-lock.json"])
const sha = (text) => createHash("sha256").update(text).digest("hex")

/** A folder's files as a Map of path -> text, without installed or cached things. */
function readTree(dir, prefix = "", tree = new Map()) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (NOT_TREE.has(entry.name)) continue
    const path = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) readTree(join(dir, entry.name), path, tree)
    else tree.set(path, readFileSync(join(dir, entry.name), "utf8"))
  }
  return tree
}

const sorted = (tree) => new Map([...tree].sort(([a], [b]) => (a < b ? -1 : 1)))

/** A form's edits applied in order to a copy of `tree`: text, null (delete) or a function of (text, tree). */
function edited(tree, edits = {}) {
  const next = new Map(tree)
  for (const [path, edit] of Object.entries(edits)) {
    const text = typeof edit === "function" ? edit(next.get(path), next) : edit
    if (text === null) next.delete(path)
    else next.set(path, text)
  }
  return sorted(next)
}

function writeTree(tree, dir) {
  for (const [path, text] of tree) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
}

/** The command's output as a check captures it: both streams in arrival order, CI=true, FORCE_COLOR=0. */
function run(command, cwd, env) {
  return new Promise((resolve) => {
    let output = ""
    const child = spawn("sh", ["-c", command], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", FORCE_COLOR: "0", ...env },
    })
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.once("close", (code) => resolve({ output, exit: code, directory: cwd }))
  })
}

/** A tree written to a new temporary folder with the base's installed dependencies linked in (nothing installed). */
async function inTree(runner, tree, use) {
  const dir = mkdtempSync(join(tmpdir(), `weakening-${runner}-`))
  try {
    writeTree(tree, dir)
    const modules = join(forms, runner, "base", "node_modules")
    if (existsSync(modules)) symlinkSync(modules, join(dir, "node_modules"))
    return await use(dir)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function gitDiff(start, end) {
  const dir = mkdtempSync(join(tmpdir(), "weakening-diff-"))
  const git = (...args) =>
    execFileSync("git", ["-c", "user.name=corpus", "-c", "user.email=corpus@example.invalid", ...args], {
      cwd: dir,
      encoding: "utf8",
    })
  try {
    git("init", "-q")
    writeTree(start, dir)
    git("add", "-A")
    git("commit", "-q", "--allow-empty", "-m", "start")
    for (const entry of readdirSync(dir)) if (entry !== ".git") rmSync(join(dir, entry), { recursive: true })
    writeTree(end, dir)
    git("add", "-A")
    git("commit", "-q", "--allow-empty", "-m", "end")
    return git("diff", "--no-color", "--no-ext-diff", "-M", "HEAD~1", "HEAD")
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The listing of a tree (path -> sha256) and the files whose text differs from the base's (null: absent). */
function treeRecord(tree, base) {
  const files = Object.fromEntries([...tree].map(([path, text]) => [path, sha(text)]))
  const changed = Object.fromEntries([...tree].filter(([path, text]) => base.get(path) !== text))
  return { files, changed }
}

const json = (value) => `${JSON.stringify(value, null, 2)}\n`

/** Why a tree cannot be written, or undefined: a path that is a file and a folder at once. */
function unmakeable(tree) {
  for (const path of tree.keys()) {
    const parts = path.split("/")
    for (let i = 1; i < parts.length; i += 1) {
      const folder = parts.slice(0, i).join("/")
      if (tree.has(folder)) return `${folder} is a file of the tree and the folder of ${path}`
    }
  }
  return undefined
}

function check(form, work, replay, plan) {
  const name = `${form.runner}/${form.form}`
  if (work.exit !== 0) throw new Error(`${name}: the work-tree run exits ${work.exit}\n${work.output}`)
  if (plan.error && form.honest) throw new Error(`${name}: honest, but the replay tree cannot be made: ${plan.error}`)
  if (plan.error) return "not-verified"
  if (form.honest && replay && replay.exit !== 0)
    throw new Error(`${name}: honest, but the replay exits ${replay.exit}\n${replay.output}`)
  if (form.honest) return "verified"
  if (replay && replay.exit !== 0) return "refused"
  if (!form.limit)
    throw new Error(`${name}: the replay ${plan.notNeeded ? "is not needed" : "passes"}, and no limit says why`)
  return "verified"
}

async function makeForm(runner, definition, base, env) {
  const form = { runner, honest: false, ...definition }
  const command = form.command ?? RUNNERS[runner].command
  const start = edited(base, form.start)
  let end = edited(start, form.end)
  if (form.endCommand)
    end = await inTree(runner, end, async (dir) => {
      const { exit, output } = await run(form.endCommand, dir, env)
      if (exit !== 0 && !form.endCommandFails) throw new Error(`${runner}/${form.form}: ${form.endCommand}\n${output}`)
      return sorted(readTree(dir))
    })
  const plan = planReplay(start, end, [command])
  const work = await inTree(runner, end, (dir) => run(command, dir, env))
  plan.error = unmakeable(plan.tree)
  const replay =
    plan.notNeeded || plan.error ? undefined : await inTree(runner, sorted(plan.tree), (dir) => run(command, dir, env))
  const expect = check(form, work, replay, plan)
  const folder = join(out, runner, form.form)
  mkdirSync(folder, { recursive: true })
  const record = {
    runner,
    form: form.form,
    class: form.class,
    honest: form.honest,
    expect,
    ...(form.changedExpectation ? { changedExpectation: form.changedExpectation } : {}),
    ...(form.limit ? { limit: form.limit } : {}),
    command,
    ...(form.endCommand ? { endCommand: form.endCommand } : {}),
    why: form.why,
    work: { exit: work.exit, directory: work.directory },
    replay: replay ? { exit: replay.exit, directory: replay.directory } : null,
    ...(plan.error ? { replayError: plan.error } : {}),
  }
  writeFileSync(join(folder, "form.json"), json(record))
  writeFileSync(join(folder, "start.json"), json(treeRecord(start, base)))
  writeFileSync(join(folder, "end.json"), json(treeRecord(end, base)))
  const tree = {
    notNeeded: plan.notNeeded,
    ...(plan.error ? { error: plan.error } : {}),
    restored: plan.restored,
    leftOut: plan.leftOut,
    merged: plan.merged,
  }
  tree.files = Object.fromEntries([...sorted(plan.tree)].map(([path, text]) => [path, sha(text)]))
  writeFileSync(join(folder, "replay-tree.json"), json(tree))
  writeFileSync(join(folder, "change.diff"), gitDiff(start, end))
  writeFileSync(join(folder, "work.txt"), work.output)
  if (replay) writeFileSync(join(folder, "replay.txt"), replay.output)
  const replayText = replay
    ? `replay exit ${replay.exit}`
    : plan.error
      ? `replay cannot be made: ${plan.error}`
      : "replay not needed"
  process.stdout.write(`${runner}/${form.form}: work exit ${work.exit}, ${replayText} -> ${expect}\n`)
  return record
}

function prepare(runner, env) {
  const dir = join(forms, runner, "base")
  if (existsSync(join(dir, "package-lock.json")) && !existsSync(join(dir, "node_modules")))
    execFileSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" })
  const version = execFileSync("sh", ["-c", RUNNERS[runner].version], {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: "utf8",
  }).trim()
  if (!version.includes(RUNNERS[runner].pinned))
    throw new Error(`${runner}: ${version} is not ${RUNNERS[runner].pinned}`)
  return version.split("\n")[0]
}

async function makeRunner(runner) {
  const tools = mkdtempSync(join(tmpdir(), "weakening-tools-"))
  // caches in a temporary place (nothing left in ~/.cache); a target/ shared by the runner's trees, as a project's is
  const env = {
    GOCACHE: join(tools, "go-build"),
    GOPATH: join(tools, "go"),
    GOFLAGS: "-count=1",
    CARGO_TARGET_DIR: join(tools, "target"),
    PYTHONDONTWRITEBYTECODE: "1",
    // the runners' own temporary files (jest's cache) go with the tools folder
    TMPDIR: tools,
    ...(RUNNERS[runner].python ? { PATH: PYTHON_PATH } : {}),
  }
  try {
    const version = prepare(runner, env)
    const base = sorted(readTree(join(forms, runner, "base")))
    rmSync(join(out, runner), { recursive: true, force: true })
    mkdirSync(join(out, runner), { recursive: true })
    writeFileSync(join(out, runner, "base.json"), json(Object.fromEntries(base)))
    const definitions = (await import(join(forms, runner, "forms.mjs"))).default
    const records = []
    for (const definition of definitions) records.push(await makeForm(runner, definition, base, env))
    writeFileSync(join(out, runner, "runner.json"), json({ runner, version, forms: records.map((r) => r.form) }))
  } finally {
    rmSync(tools, { recursive: true, force: true })
  }
}

/** README.md's table of forms, from every runner's recorded forms (also those not regenerated this time). */
function writeReadme() {
  const head = readFileSync(join(forms, "README-head.md"), "utf8")
  const rows = []
  const versions = []
  for (const runner of Object.keys(RUNNERS)) {
    if (!existsSync(join(out, runner, "runner.json"))) continue
    const recorded = JSON.parse(readFileSync(join(out, runner, "runner.json"), "utf8"))
    versions.push(`- ${runner}: ${recorded.version}`)
    for (const name of recorded.forms) {
      const f = JSON.parse(readFileSync(join(out, runner, name, "form.json"), "utf8"))
      const replay = f.replay ? `exit ${f.replay.exit}` : "not needed"
      const expect = `${f.expect}${f.changedExpectation ? " (changed expectation)" : ""}${f.limit ? " — **limit**" : ""}`
      const cell = (text) => text.replaceAll("|", "\\|")
      rows.push(
        `| ${runner} | \`${f.form}\` | ${cell(f.class)} | ${expect} | ${f.work.exit} | ${replay} | ${cell(f.why)} |`,
      )
    }
  }
  const table = [
    "| runner | form | class | expect | work exit | replay | what the end did |",
    "|---|---|---|---|---|---|---|",
  ]
  const text = `${head}\n## Tool versions (as recorded)\n\n${versions.join("\n")}\n\n## The forms\n\n${[...table, ...rows].join("\n")}\n`
  writeFileSync(join(out, "README.md"), text)
}

const args = process.argv.slice(2)
const wanted = args.filter((a) => a !== "--readme")
for (const name of wanted) if (!(name in RUNNERS)) throw new Error(`no runner named ${name}`)
if (!args.includes("--readme"))
  for (const runner of Object.keys(RUNNERS))
    if (wanted.length === 0 || wanted.includes(runner)) await makeRunner(runner)
writeReadme()
