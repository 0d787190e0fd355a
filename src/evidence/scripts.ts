// The package.json scripts a check runs: `npm test`, `npm run X`, `pnpm X`, `yarn X`, `bun run X`,
// with the pre and post scripts npm runs around them and the scripts those call in turn; and which
// of them changed from one package.json to another. Pure: the texts are given.
import type { Finding } from "./finding.js"

const SEPARATORS = ["&&", "||", ";", "|", "\n"]
// Package managers' own commands: `pnpm install` or `yarn add` is no script.
const BUILTIN = new Set(
  [
    "add audit bin cache config create dedupe dlx env exec explain fetch help i import info init install link list ls",
    "outdated pack patch plugin prune publish rebuild remove rm root set setup store unlink up update upgrade version",
    "why workspace workspaces",
  ]
    .join(" ")
    .split(" "),
)
const NPM_SCRIPTS: Record<string, string> = {
  test: "test",
  t: "test",
  tst: "test",
  start: "start",
  stop: "stop",
  restart: "restart",
}
const NPM_RUN = new Set(["run", "run-script", "rum", "urn"])

/** The scripts one command line names directly. */
export function scriptsCalled(command: string): string[] {
  let segments = [command]
  for (const separator of SEPARATORS) segments = segments.flatMap((s) => s.split(separator))
  const names: string[] = []
  for (const segment of segments) {
    const words = segment
      .trim()
      .split(/\s+/)
      .filter((w) => w !== "")
    let i = 0
    while (i < words.length && words[i]!.includes("=") && !words[i]!.startsWith("-")) i += 1 // FOO=1 npm test
    if (words[i] === "npx" || words[i] === "env") i += 1
    const tool = words[i]
    const args = words.slice(i + 1).filter((w) => !w.startsWith("-"))
    const [first, second] = args
    if (!first) continue
    if (tool === "npm") {
      if (NPM_SCRIPTS[first]) names.push(NPM_SCRIPTS[first])
      else if (NPM_RUN.has(first) && second) names.push(second)
    } else if (tool === "pnpm" || tool === "yarn") {
      if (first === "run" && second) names.push(second)
      else if (!BUILTIN.has(first) && first !== "run") names.push(first)
    } else if (tool === "bun" && first === "run" && second) names.push(second)
  }
  return names
}

/** The scripts of a package.json text (none when it does not parse). */
export function scriptsOf(packageJson: string | null): Record<string, string> {
  if (packageJson === null) return {}
  try {
    const parsed = JSON.parse(packageJson) as { scripts?: unknown }
    const scripts = parsed && typeof parsed === "object" ? parsed.scripts : undefined
    if (!scripts || typeof scripts !== "object") return {}
    return Object.fromEntries(Object.entries(scripts).filter((e): e is [string, string] => typeof e[1] === "string"))
  } catch {
    return {}
  }
}

/**
 * The names of the scripts a check's command runs, as any of the given script tables has them: the
 * scripts it names, their pre and post scripts, and the scripts those call.
 */
export function reachedScripts(command: string, ...tables: readonly Record<string, string>[]): Set<string> {
  const seen = new Set<string>()
  const queue = scriptsCalled(command)
  while (queue.length > 0 && seen.size < 200) {
    const name = queue.shift()!
    if (seen.has(name)) continue
    seen.add(name)
    // npm runs `pretest` and `posttest` around `test` (not `prepretest` around `pretest`).
    for (const hook of [`pre${name}`, `post${name}`]) if (!seen.has(hook)) seen.add(hook)
    for (const script of [name, `pre${name}`, `post${name}`])
      for (const table of tables) {
        const text = table[script]
        if (text !== undefined) queue.push(...scriptsCalled(text))
      }
  }
  return seen
}

/**
 * The scripts a check's command runs whose text differs between the two package.json texts (null:
 * no such file), as either version has them.
 */
export function changedCheckScripts(command: string, before: string | null, after: string | null): Finding[] {
  const file = "package.json"
  const old = scriptsOf(before)
  const now = scriptsOf(after)
  const findings: Finding[] = []
  for (const name of reachedScripts(command, old, now)) {
    const [was, is] = [old[name] ?? null, now[name] ?? null]
    if (was !== is) findings.push({ kind: "check-script", file, name, before: was, after: is })
  }
  return findings
}
