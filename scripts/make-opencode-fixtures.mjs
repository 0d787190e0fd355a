#!/usr/bin/env node
// Regenerates test/fixtures/opencode/: what the real `opencode serve` (node_modules' opencode-ai)
// prints in the cases the runner reads its output for.
//
//   node scripts/make-opencode-fixtures.mjs
//
// serve-migration-race.txt: two `opencode serve` started at once on one fresh data folder (HOME and
// XDG_* in a temporary folder): one of them fails its database migration and exits 1. Tried up to
// 20 times, since the race is not lost every time.
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const bin = join(root, "node_modules", "opencode-linux-x64", "bin", "opencode")
const out = join(root, "test", "fixtures", "opencode")

/** One `opencode serve` in `dir`: resolves with what it printed once it listens (then it is stopped) or exits. */
function serve(dir, env) {
  return new Promise((resolve) => {
    const child = spawn(bin, ["serve", "--port", "0", "--hostname", "127.0.0.1"], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let output = ""
    const keep = (chunk) => {
      output += chunk.toString()
      if (output.includes("server listening on")) child.kill("SIGKILL")
    }
    child.stdout.on("data", keep)
    child.stderr.on("data", keep)
    child.once("exit", (code) => resolve({ code, output }))
  })
}

for (let attempt = 1; attempt <= 20; attempt += 1) {
  const temp = mkdtempSync(join(tmpdir(), "ralph-opencode-fixture-"))
  try {
    const env = {
      PATH: process.env.PATH,
      HOME: join(temp, "home"),
      XDG_CONFIG_HOME: join(temp, "config"),
      XDG_DATA_HOME: join(temp, "data"),
      XDG_CACHE_HOME: join(temp, "cache"),
      XDG_STATE_HOME: join(temp, "state"),
      TMPDIR: join(temp, "tmp"),
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      NO_COLOR: "1",
    }
    for (const dir of ["home", "tmp", "a", "b"]) mkdirSync(join(temp, dir))
    const runs = await Promise.all([serve(join(temp, "a"), env), serve(join(temp, "b"), env)])
    const lost = runs.find((r) => r.code === 1 && !r.output.includes("server listening on"))
    if (lost) {
      mkdirSync(out, { recursive: true })
      writeFileSync(join(out, "serve-migration-race.txt"), lost.output.replaceAll(temp, "/tmp/TEMP"))
      console.log(`serve-migration-race.txt: the race was lost at attempt ${attempt}`)
      break
    }
  } finally {
    rmSync(temp, { recursive: true, force: true })
  }
  if (attempt === 20) {
    console.error("no attempt lost the race: no fixture written")
    process.exitCode = 1
  }
}
