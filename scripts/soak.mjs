// `npm run soak`: runs the compiled soak (.build/test/soak/run.js) with a temp dir of its own
// (TMPDIR, TMP, TEMP), removed when it ends — passed, failed or interrupted.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "ralph-soak-"))
const child = spawn(process.execPath, [".build/test/soak/run.js", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TMPDIR: dir, TMP: dir, TEMP: dir },
})
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal))
// Not started at all: the temp dir goes too.
child.on("error", (error) => {
  rmSync(dir, { recursive: true, force: true })
  console.error(`could not start the soak: ${error.message}`)
  process.exit(1)
})
child.on("exit", (code, signal) => {
  if (process.env.RALPH_TEST_KEEP) console.log(`RALPH_TEST_KEEP: the soak's temp dir is kept: ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
  process.exit(code ?? (signal ? 1 : 0))
})
