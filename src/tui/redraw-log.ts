// For the benchmark only (bench/tui.ts): when RALPH_LOOP_BENCH_REDRAWS names a file, every change of
// the text the sidebar or the view shows appends one line (`<ms> <what>`) to it. Unset (always, but
// in the benchmark), nothing is written.
import { appendFileSync } from "node:fs"

const file = process.env.RALPH_LOOP_BENCH_REDRAWS

export function noteRedraw(what: string): void {
  if (!file) return
  try {
    appendFileSync(file, `${Date.now()} ${what}\n`)
  } catch {
    // a benchmark's file gone: nothing to count into
  }
}
