// Enough of semver ranges for engines.opencode: space-separated comparators (>=1.18.33 <2), each
// with an optional operator; "*" matches everything. Pre-release tags are compared as lower.

type Triple = [number, number, number]

function parse(version: string): { triple: Triple; pre: boolean } | undefined {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?/.exec(version.trim())
  if (!match) return undefined
  return { triple: [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)], pre: Boolean(match[4]) }
}

function compare(a: { triple: Triple; pre: boolean }, b: { triple: Triple; pre: boolean }): number {
  for (let i = 0; i < 3; i += 1)
    if (a.triple[i] !== b.triple[i]) return (a.triple[i] as number) - (b.triple[i] as number)
  return a.pre === b.pre ? 0 : a.pre ? -1 : 1
}

/** Whether `version` satisfies every comparator of `range`; undefined when either cannot be read. */
export function satisfies(version: string, range: string): boolean | undefined {
  const v = parse(version)
  if (!v) return undefined
  for (const comparator of range.trim().split(/\s+/)) {
    if (comparator === "*" || comparator === "") continue
    const match = /^(>=|<=|>|<|=)?(.+)$/.exec(comparator)
    const bound = match && parse(match[2] as string)
    if (!match || !bound) return undefined
    const c = compare(v, bound)
    const ok = { ">=": c >= 0, "<=": c <= 0, ">": c > 0, "<": c < 0, "=": c === 0 }[match[1] ?? "="]
    if (!ok) return false
  }
  return true
}
