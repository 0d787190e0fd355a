#!/usr/bin/env node
// Regenerates test/fixtures/runners/: the real test runners, linters and compilers run on the small
// projects in scripts/runner-fixtures/, and what they print is recorded as a check would capture it
// (stdout and stderr in arrival order, CI=true, FORCE_COLOR=0 unless a fixture asks for colour).
//
//   node scripts/make-runner-fixtures.mjs            every fixture
//   node scripts/make-runner-fixtures.mjs pytest go  some of them
//   node scripts/make-runner-fixtures.mjs --scenarios=skipped,removed vitest
//                                                    only these scenarios, the folder's other runs kept
//
// A project's source files mark their faults: a line ending in `// fault:A` (or `# fault:A`) is kept
// only while fault A is on, a line ending in `fixed:A` only while it is off. Each run writes the
// project into a new temporary folder (its node_modules a link to the installed one), with the
// faults of its step on and `pad` comment lines put above the code of every source file, so the same
// failure sits on other lines. What the tools need: `npm install --no-audit --no-fund` in each
// node project (done here when node_modules is missing); Debian's python3-pytest, mypy, golang-go;
// cargo; ruff from pip into scripts/runner-fixtures/ruff/.venv (done here when missing).
import { spawn, execFileSync } from "node:child_process"
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, extname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const projects = join(root, "scripts", "runner-fixtures")
const out = join(root, "test", "fixtures", "runners")
const python = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3"
const ruffBin = join(projects, "ruff", ".venv", "bin")

/** The steps of each scenario: the faults that are on, and how many lines are put above the code. */
const SCENARIOS = {
  // (a) the same failure twice, timings differing and the code moved down between the runs
  same: [
    { faults: "A", pad: 0 },
    { faults: "A", pad: 6 },
  ],
  // (b) two failures, then one of them fixed while the other remains
  fixed: [
    { faults: "AC", pad: 0 },
    { faults: "C", pad: 2 },
  ],
  // (c) a different failure each run
  different: [
    { faults: "A", pad: 0 },
    { faults: "B", pad: 0 },
    { faults: "C", pad: 0 },
    { faults: "D", pad: 0 },
  ],
  // a file that does not load, build or parse (a missing import, a syntax error)
  broken: [{ faults: "E", pad: 0 }],
  // nothing fails
  pass: [{ faults: "", pad: 0 }],
}

/** Test runners only (issue 39): a test skipped (S, alone and beside a failure) and a test removed (R). */
const TEST_SCENARIOS = {
  ...SCENARIOS,
  skipped: [
    { faults: "S", pad: 0 },
    { faults: "AS", pad: 0 },
  ],
  removed: [{ faults: "R", pad: 0 }],
}

/** name: the fixture folder; project: the folder in scripts/runner-fixtures; version: a command printing the tool's version. */
const FIXTURES = [
  {
    name: "pytest",
    tests: true,
    project: "pytest",
    command: `${python} -m pytest`,
    version: `${python} -m pytest --version`,
  },
  {
    name: "pytest-q",
    tests: true,
    project: "pytest",
    command: `${python} -m pytest -q`,
    version: `${python} -m pytest --version`,
  },
  {
    name: "pytest-v",
    tests: true,
    project: "pytest",
    command: `${python} -m pytest -v -rN`,
    version: `${python} -m pytest --version`,
  },
  {
    name: "pytest-rN",
    tests: true,
    project: "pytest",
    command: `${python} -m pytest -rN`,
    version: `${python} -m pytest --version`,
  },
  {
    name: "pytest-color",
    tests: true,
    project: "pytest",
    command: `${python} -m pytest --color=yes`,
    version: `${python} -m pytest --version`,
  },
  { name: "vitest", tests: true, project: "vitest", command: "npx vitest run", version: "npx vitest --version" },
  {
    name: "vitest-color",
    tests: true,
    project: "vitest",
    command: "npx vitest run",
    env: { FORCE_COLOR: "1" },
    version: "npx vitest --version",
  },
  { name: "jest", tests: true, project: "jest", command: "npx jest", version: "npx jest --version" },
  {
    name: "node-test-spec",
    tests: true,
    project: "node-test",
    command: "node --test --test-reporter=spec",
    version: "node --version",
  },
  {
    name: "node-test-tap",
    tests: true,
    project: "node-test",
    command: "node --test --test-reporter=tap",
    version: "node --version",
  },
  { name: "mocha", tests: true, project: "mocha", command: "npx mocha", version: "npx mocha --version" },
  { name: "go", tests: true, project: "go", command: "go test ./...", version: "go version" },
  { name: "go-json", tests: true, project: "go", command: "go test -json ./...", version: "go version" },
  { name: "go-v", tests: true, project: "go", command: "go test -v ./...", version: "go version" },
  { name: "cargo", tests: true, project: "cargo", command: "cargo test", version: "cargo --version" },
  { name: "tsc", project: "typescript", command: "npx tsc -p .", version: "npx tsc --version" },
  { name: "tsc-pretty", project: "typescript", command: "npx tsc -p . --pretty", version: "npx tsc --version" },
  { name: "eslint-stylish", project: "eslint", command: "npx eslint .", version: "npx eslint --version" },
  { name: "eslint-unix", project: "eslint", command: "npx eslint -f unix .", version: "npx eslint --version" },
  { name: "eslint-json", project: "eslint", command: "npx eslint -f json .", version: "npx eslint --version" },
  {
    name: "ruff",
    project: "ruff",
    command: "ruff check .",
    env: { PATH: `${ruffBin}:${process.env.PATH}` },
    version: `${join(ruffBin, "ruff")} --version`,
  },
  {
    name: "ruff-concise",
    project: "ruff",
    command: "ruff check --output-format=concise .",
    env: { PATH: `${ruffBin}:${process.env.PATH}` },
    version: `${join(ruffBin, "ruff")} --version`,
  },
  { name: "mypy", project: "mypy", command: "mypy .", version: "mypy --version" },
]

const SOURCE = new Set([".js", ".ts", ".py", ".go", ".rs"])
const MARK = / *(?:\/\/|#) (fault|fixed):([A-Z])$/
const SKIP = new Set([
  "node_modules",
  ".venv",
  "target",
  ".ruff_cache",
  ".mypy_cache",
  ".pytest_cache",
  "__pycache__",
  "package-lock.json",
])

/** A source file with the step's faults on and `pad` comment lines above its code. */
function variant(text, ext, faults, pad) {
  const comment = ext === ".py" ? "#" : "//"
  const lines = []
  for (const line of text.split("\n")) {
    const mark = MARK.exec(line)
    if (!mark) lines.push(line)
    else if ((mark[1] === "fault") === faults.includes(mark[2])) lines.push(line.slice(0, mark.index))
  }
  const padding = Array.from({ length: pad }, (_, i) => `${comment} padding line ${i + 1}: the code below moved down`)
  return [...padding, ...lines].join("\n")
}

function writeProject(from, to, faults, pad) {
  for (const entry of readdirSync(from)) {
    if (SKIP.has(entry)) continue
    const source = join(from, entry)
    const target = join(to, entry)
    if (statSync(source).isDirectory()) {
      mkdirSync(target)
      writeProject(source, target, faults, pad)
    } else if (SOURCE.has(extname(entry)) && entry !== "eslint.config.js")
      writeFileSync(target, variant(readFileSync(source, "utf8"), extname(entry), faults, pad))
    else cpSync(source, target)
  }
}

/** The command's output as a check captures it: both streams, in the order they arrive. */
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
    child.once("close", (code) => resolve({ output, exitCode: code }))
  })
}

function prepare(fixture) {
  const dir = join(projects, fixture.project)
  if (
    existsSync(join(dir, "package.json")) &&
    readFileSync(join(dir, "package.json"), "utf8").includes("devDependencies") &&
    !existsSync(join(dir, "node_modules"))
  )
    execFileSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" })
  if (fixture.project === "ruff" && !existsSync(join(ruffBin, "ruff"))) {
    execFileSync(python, ["-m", "venv", join(dir, ".venv")], { stdio: "inherit" })
    execFileSync(join(ruffBin, "pip"), ["install", "--quiet", "--retries", "0", "--timeout", "10", "ruff==0.16.9"], {
      stdio: "inherit",
    })
  }
}

async function make(fixture, only) {
  prepare(fixture)
  const project = join(projects, fixture.project)
  const folder = join(out, fixture.name)
  const all = fixture.tests ? TEST_SCENARIOS : SCENARIOS
  const scenarios = only ? Object.fromEntries(Object.entries(all).filter(([name]) => only.includes(name))) : all
  // Only some scenarios: the folder's other runs are kept, and they must come from the same version.
  const kept = only ? JSON.parse(readFileSync(join(folder, "runs.json"), "utf8")) : undefined
  if (!only) rmSync(folder, { recursive: true, force: true })
  mkdirSync(folder, { recursive: true })
  const tools = mkdtempSync(join(tmpdir(), "ralph-fixture-cache-"))
  // Go's build cache and module folder in a temporary place: nothing is left in ~/.cache.
  const env = { GOCACHE: join(tools, "go-build"), GOPATH: join(tools, "go"), ...fixture.env }
  const version = execFileSync("sh", ["-c", fixture.version], {
    cwd: project,
    env: { ...process.env, ...env },
    encoding: "utf8",
  })
    .trim()
    .split("\n")[0]
  if (kept && kept.version !== version)
    throw new Error(`${fixture.name}: ${version} is not the ${kept.version} its other runs came from`)
  const runs = kept ? kept.runs.filter((r) => !(r.scenario in scenarios)) : []
  try {
    for (const [scenario, steps] of Object.entries(scenarios)) {
      for (const [i, step] of steps.entries()) {
        const directory = mkdtempSync(join(tmpdir(), `ralph-fixture-${fixture.name}-`))
        try {
          writeProject(project, directory, step.faults, step.pad)
          if (existsSync(join(project, "node_modules")))
            symlinkSync(join(project, "node_modules"), join(directory, "node_modules"))
          const { output, exitCode } = await run(fixture.command, directory, env)
          const file = `${scenario}-${i + 1}.txt`
          writeFileSync(join(folder, file), output)
          runs.push({ file, scenario, step: i + 1, faults: step.faults.split(""), pad: step.pad, directory, exitCode })
          process.stdout.write(`${fixture.name}/${file}: exit ${exitCode}, ${output.length} characters\n`)
        } finally {
          rmSync(directory, { recursive: true, force: true })
        }
      }
    }
  } finally {
    rmSync(tools, { recursive: true, force: true })
  }
  const lines = runs.map((r) => `    ${JSON.stringify(r)}`).join(",\n")
  writeFileSync(
    join(folder, "runs.json"),
    `{\n  "tool": ${JSON.stringify(fixture.name)},\n  "version": ${JSON.stringify(version)},\n  "command": ${JSON.stringify(fixture.command)},\n  "runs": [\n${lines}\n  ]\n}\n`,
  )
}

const args = process.argv.slice(2)
const only = args
  .find((a) => a.startsWith("--scenarios="))
  ?.slice("--scenarios=".length)
  .split(",")
const wanted = args.filter((a) => !a.startsWith("--"))
for (const name of only ?? []) if (!(name in TEST_SCENARIOS)) throw new Error(`no scenario named ${name}`)
for (const name of wanted)
  if (!FIXTURES.some((f) => f.name === name || f.project === name)) throw new Error(`no fixture named ${name}`)
for (const fixture of FIXTURES)
  if (wanted.length === 0 || wanted.includes(fixture.name) || wanted.includes(fixture.project))
    await make(fixture, only)
