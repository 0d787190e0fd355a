// The soak's short form (`npm run soak -- --short`, about two minutes): a recreate loop of 30
// iterations and a continue loop of 10 in one OpenCode; then 8 loops at once (strategies mixed) with
// 3 plain sessions chatting beside them, and an Esc + /ralph-resume, a /cancel-ralph, a 429 burst and
// a SIGKILL among them. The long form (`npm run soak`) runs the sizes and is not part of
// `npm test`; its figures are in BENCHMARKS.md.
import { describe, expect, it } from "vitest"
import { formatReport } from "../soak/report.js"
import { runSoak, SHORT_SOAK } from "../soak/soak.js"

describe("soak (short form)", () => {
  it("nothing lost, doubled or foreign; every loop in a named final state; nothing left behind; nothing growing", {
    timeout: 900_000,
  }, async () => {
    const report = await runSoak(SHORT_SOAK, () => undefined)
    const text = formatReport(report)
    console.log(text)
    const { totals } = report

    expect(totals.lost, text).toEqual([])
    expect(totals.double, text).toEqual([])
    expect(totals.foreign, text).toEqual([])
    expect(totals.unfinished, text).toEqual([])
    expect(totals.orphans, text).toEqual([])
    expect(totals.missingFiles, text).toEqual([])
    // Every iteration of the recreate loop after the first left an old session, deleted with its files on disk.
    expect(totals.deleted).toBeGreaterThanOrEqual(SHORT_SOAK.long.recreate - 1)
    expect(totals.prompts).toBeGreaterThanOrEqual(
      SHORT_SOAK.long.recreate + SHORT_SOAK.long.continue + SHORT_SOAK.wide.loops * SHORT_SOAK.wide.iterations,
    )
    // Every kind of fault happened while loops ran.
    expect(new Set(report.wide.faults.map((f) => f.kind))).toEqual(new Set(["esc", "cancel", "429", "kill"]))
    expect(report.wide.cancelled).toHaveLength(1)

    // Once every loop has ended, the plugin holds nothing of them: a probe loop's stop counts only itself.
    for (const settled of [report.long.settled, report.wide.settled]) {
      expect(settled, text).toMatchObject({ loops: 0, timers: 0, newSessions: 0 })
      expect(settled?.writes, text).toBeLessThanOrEqual(1)
      expect(settled?.batches, text).toBeLessThanOrEqual(1)
      expect(settled?.states, text).toBeLessThanOrEqual(1)
    }
    // OpenCode's open files and memory over the recreate loop: loose bounds (the slopes of the long form are in BENCHMARKS.md).
    const recreate = report.figures.find((f) => f.strategy === "recreate")!
    expect(recreate.fds.end, text).toBeLessThanOrEqual(recreate.fds.warm + 32)
    expect(recreate.rssMB.end, text).toBeLessThanOrEqual(recreate.rssMB.warm * 1.5)
    // Journals stay within their rotation bound (1 MB each, at most 4 old ones).
    expect(recreate.disk.journalsMax).toBeLessThanOrEqual(5)
  })
})
