// The soak's printed report: the figures, the faults, and every consistency count (0 is the goal).
import type { SoakReport } from "./soak.js"

export function formatReport(report: SoakReport): string {
  const lines: string[] = []
  const { wide, totals } = report
  lines.push("long loops (one OpenCode process, no faults)")
  for (const f of report.figures) {
    lines.push(
      `  ${f.strategy}: ${f.iterations} iterations in ${f.seconds} s`,
      `    RSS ${f.rssMB.warm} → ${f.rssMB.end} MB (max ${f.rssMB.max}); per 100 iterations after warm-up: slope ${f.rssMB.slopePer100} MB, of the floor ${f.rssMB.floorSlopePer100} MB`,
      `      lowest–highest per 50 iterations: ${f.rssMB.per50.map((w) => `${w.from}–${w.to} ${w.min}–${w.max}`).join(", ")}`,
      `    open fds ${f.fds.warm} → ${f.fds.end} (max ${f.fds.max}); per 100 iterations after warm-up: slope ${f.fds.slopePer100}, of the floor ${f.fds.floorSlopePer100}`,
      `    idle → prompt: first 20 ${f.idleToPrompt.early} ms, last 20 ${f.idleToPrompt.late} ms (${f.idleToPrompt.ratio}×); per 50: ${f.idleToPrompt.per50.map((b) => `${b.from}–${b.to} ${b.ms} ms`).join(", ")}`,
      `    disk: summaries + transcripts ${f.disk.summaryBytesPerIteration} B per iteration (${f.disk.summaryMB} MB); state files ${f.disk.stateKB} KB; journals at most ${f.disk.journalMBMax} MB in ${f.disk.journalsMax} file(s), ${f.disk.journalBytesPerIteration.early} B per iteration early, ${f.disk.journalBytesPerIteration.late} B late`,
      `    model request ${f.requestKB.first} KB at iteration 1, ${f.requestKB.last} KB at the last sample`,
    )
  }
  const byKind = (kind: string) => wide.faults.filter((f) => f.kind === kind).length
  const pids = [...new Set(wide.samples.map((s) => s.pid))]
  lines.push(
    `wide + churn: ${wide.loops} loops, ${wide.iterations} iterations prompted, ${wide.chatMessagesSent} chat messages, ${wide.seconds} s`,
    `  faults: esc ${byKind("esc")}, cancel ${byKind("cancel")} (${wide.cancelled.join(", ") || "none"}), 429 burst ${byKind("429")}, SIGKILL ${byKind("kill")}`,
    ...pids.map((pid) => {
      const run = wide.samples.filter((s) => s.pid === pid && s.stats)
      const rss = run.map((s) => Math.round((s.stats?.rssKB ?? 0) / 1024))
      const fds = run.map((s) => s.stats?.fds ?? 0)
      return `  server pid ${pid}: RSS ${rss.join(" ")} MB; fds ${fds.join(" ")}`
    }),
  )
  const held = (g: SoakReport["wide"]["settled"]) =>
    g
      ? `loops ${g.loops}, timers ${g.timers}, pending writes ${g.writes}, batches ${g.batches}, states kept ${g.states}, new sessions ${g.newSessions}`
      : "no gauges logged"
  lines.push(
    `plugin once all loops ended (a probe loop's stop; its own write counts 1): long ${held(report.long.settled)}; wide ${held(wide.settled)}`,
  )
  lines.push(
    "consistency (both scenarios)",
    `  prompts ${totals.prompts} (${totals.resumes} resumes, each after a fault) · lost ${totals.lost.length} · double ${totals.double.length} · foreign ${totals.foreign.length}`,
    `  loops not in their named final state ${totals.unfinished.length} · orphan sessions ${totals.orphans.length} · sessions deleted ${totals.deleted}, summary/transcript missing ${totals.missingFiles.length}`,
    ...[
      ...totals.lost,
      ...totals.double,
      ...totals.foreign,
      ...totals.unfinished,
      ...totals.orphans,
      ...totals.missingFiles,
    ]
      .slice(0, 40)
      .map((problem) => `  ! ${problem}`),
    `total ${report.seconds} s`,
  )
  return lines.join("\n")
}
