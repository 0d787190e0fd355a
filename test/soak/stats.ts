// Small statistics for the soak's figures.

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** Least-squares slope of y over x (NaN with fewer than two distinct x). */
export function slope(points: ReadonlyArray<{ x: number; y: number }>): number {
  const n = points.length
  if (n < 2) return Number.NaN
  const mx = points.reduce((s, p) => s + p.x, 0) / n
  const my = points.reduce((s, p) => s + p.y, 0) / n
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0)
  if (sxx === 0) return Number.NaN
  return points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx
}

export const round = (value: number, digits = 1): number => Math.round(value * 10 ** digits) / 10 ** digits

/** A seeded generator (mulberry32): the churn's choices are the same for the same seed. */
export function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
