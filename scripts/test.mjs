// `npm test`: runs vitest with a temp dir of its own (TMPDIR, TMP and TEMP point into it), so what
// the tests leave behind is theirs alone — other programs' temp files cannot hide it or be blamed
// for it. Anything left there at the end fails the run, by name; the folder is removed either way.
// (A vitest globalSetup cannot do this: vitest makes its own temp dir before it runs one, and
// leaves that dir behind when a globalSetup is loaded.)
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "ralph-test-run-"))
const child = spawn("vitest", ["run", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { ...process.env, TMPDIR: dir, TMP: dir, TEMP: dir },
})
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal))
// Not started at all (vitest not on PATH: run it through npm): the temp dir goes too.
child.on("error", (error) => {
  rmSync(dir, { recursive: true, force: true })
  console.error(`could not start vitest: ${error.message}`)
  process.exit(1)
})

child.on("exit", (code, signal) => {
  const left = readdirSync(dir)
  if (process.env.RALPH_TEST_KEEP) {
    console.log(`RALPH_TEST_KEEP: the tests' temp dir is kept: ${dir}`)
  } else {
    rmSync(dir, { recursive: true, force: true })
    if (left.length > 0) {
      const shown = left.slice(0, 20).join(", ") + (left.length > 20 ? ", …" : "")
      console.error(`the tests left ${left.length} entries in their temp dir (removed now): ${shown}`)
      process.exit(1)
    }
  }
  process.exit(code ?? (signal ? 1 : 0))
})
