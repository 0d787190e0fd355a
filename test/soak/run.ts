// npm run soak — the soak of issue 16 against the real OpenCode: prints the figures and every
// consistency count, writes them all to bench/results/soak-latest.json, and exits non-zero when a
// count that must be 0 is not.
//
//   npm run soak             the sizes: 300 + 100 iterations, 50 loops with faults every 30 s
//   npm run soak -- --short  about two minutes (what test/e2e/soak.e2e.test.ts runs)
import { execFileSync } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { join } from "node:path"
import { packageDir } from "../harness/harness.js"
import { formatReport } from "./report.js"
import { LONG_SOAK, runSoak, SHORT_SOAK } from "./soak.js"

// Ended by Ctrl-C: exit normally, so the harness ends OpenCode by its PID on the way out.
process.once("SIGINT", () => process.exit(130))
process.once("SIGTERM", () => process.exit(143))

const short = process.argv.includes("--short") || process.env.RALPH_SOAK_SHORT === "1"
const options = short ? SHORT_SOAK : LONG_SOAK
const dir = packageDir()
const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: dir, encoding: "utf8" }).trim()
const dirty = execFileSync("git", ["status", "--porcelain", "src"], { cwd: dir, encoding: "utf8" }).trim() !== ""
const loadBefore = loadavg()[0]?.toFixed(1)
const stamp = () => new Date().toISOString().slice(11, 19)
console.log(
  `soak (${short ? "short" : "long"}) at ${commit}${dirty ? " + uncommitted src/" : ""}, load average ${loadBefore}`,
)

const report = await runSoak(options, (line) => console.log(`[${stamp()}] ${line}`))
console.log(
  `\n${formatReport(report)}\nload average ${loadBefore} at the start, ${loadavg()[0]?.toFixed(1)} at the end`,
)
const results = join(dir, "bench", "results")
mkdirSync(results, { recursive: true })
writeFileSync(
  join(results, "soak-latest.json"),
  JSON.stringify({ commit, dirty, short, loadBefore, loadAfter: loadavg()[0], report }, null, 2),
)
const { lost, double, foreign, unfinished, orphans, missingFiles } = report.totals
const failed = lost.length + double.length + foreign.length + unfinished.length + orphans.length + missingFiles.length
process.exit(failed > 0 ? 1 : 0)
