// Temp folders for a test file: each is removed after the test that made it, also when it fails.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach } from "vitest"

/** Call once at the top of a test file; the function it returns makes a folder `<tmp>/<prefix>XXXXXX`. */
export function tempDirs(): (prefix: string) => string {
  const made: string[] = []
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
  })
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    made.push(dir)
    return dir
  }
}
