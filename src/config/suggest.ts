// "Did you mean …?" for a mistyped config key or flag.

/** The candidate closest to `name` (case, "-" and "_" ignored), if at most two edits away. */
export function closest(name: string, candidates: readonly string[]): string | undefined {
  const normal = (k: string) => k.toLowerCase().replace(/[-_]/g, "")
  const scored = candidates.map((k) => ({ k, d: editDistance(normal(name), normal(k)) })).sort((a, b) => a.d - b.d)
  const best = scored[0]
  return best && best.d <= 2 ? best.k : undefined
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i]
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost)
    }
    previous = current
  }
  return previous[b.length] ?? 0
}
