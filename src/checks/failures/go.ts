// go test: `--- FAIL: TestX/sub (0.00s)` lines (subtests indented), each package closed by
// `FAIL	example.com/pkg	0.01s` (or `[build failed]`); a package that failed with no test named
// (a panic, a timeout) is the package alone. Compile and vet errors under `# example.com/pkg`:
// `./a_test.go:10:2: undefined: x`. `go test -json`: the `"Action":"fail"` events.
import { LONG_LINE, finding, type Context } from "./text.js"

export function goFailures(lines: readonly string[], context: Context): string[] {
  const found: string[] = []
  let pending: string[] = []
  let built = false
  for (const line of lines) {
    if (line.length > LONG_LINE) continue
    const text = line.trimStart()
    if (text.startsWith("--- FAIL: ")) {
      const name = text.slice("--- FAIL: ".length).replace(/ \(\d+(?:\.\d+)?s\)$/, "")
      if (name) pending.push(name)
      built = false
    } else if (line.startsWith("FAIL\t")) {
      const pkg = line
        .slice(5)
        .split("\t")[0]!
        .replace(/ \[[^\]]*\]$/, "")
        .trim()
      if (pending.length === 0) found.push(pkg)
      for (const name of pending) found.push(`${pkg} ${name}`)
      pending = []
      built = false
    } else if (line.startsWith("# ")) {
      built = true
    } else if (built) {
      const error = /^(?:vet: )?(\S+\.go):\d+(?::\d+)?: (.+)$/.exec(line)
      if (error) found.push(finding(error[1], "go", error[2]!, context))
      else if (!(line.startsWith("\t") || line.startsWith(" ") || line === "")) built = false
    } else if (text.startsWith('{"') && text.includes('"Action":"fail"')) {
      const event = jsonEvent(text)
      if (typeof event?.Package === "string")
        found.push(typeof event.Test === "string" ? `${event.Package} ${event.Test}` : event.Package)
    }
  }
  return leaves([...found, ...pending])
}

const TEST_NAME = /^(?:Test|Benchmark|Example|Fuzz)/

/**
 * Only failures of their own: a parent test fails with its subtests (`pkg TestX` when `pkg TestX/sub`
 * failed), a package with its tests. Linear: each id marks its parents.
 */
function leaves(ids: readonly string[]): string[] {
  const parents = new Set<string>()
  for (const id of ids) {
    const space = id.indexOf(" ")
    const pkg = space >= 0 ? id.slice(0, space) : ""
    const test = space >= 0 ? id.slice(space + 1) : TEST_NAME.test(id) ? id : ""
    if (pkg && test) parents.add(pkg)
    for (let slash = test.lastIndexOf("/"); slash > 0; slash = test.lastIndexOf("/", slash - 1))
      parents.add(pkg ? `${pkg} ${test.slice(0, slash)}` : test.slice(0, slash))
  }
  return ids.filter((id) => !parents.has(id))
}

function jsonEvent(line: string): { Package?: unknown; Test?: unknown } | undefined {
  try {
    const event = JSON.parse(line) as unknown
    return typeof event === "object" && event !== null ? (event as { Package?: unknown; Test?: unknown }) : undefined
  } catch {
    return undefined
  }
}
