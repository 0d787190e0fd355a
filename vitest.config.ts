import { readdirSync, readFileSync } from "node:fs"
import { configDefaults, defineConfig } from "vitest/config"

// The unit files share their workers' module cache (isolate: false): importing src/ again for each
// of them was half the unit tests' time. A file that replaces a module (vi.mock) keeps a fresh
// module graph of its own, as does every file outside test/unit.
const mocksModules = (file: string) => /\bvi\.(do)?[mM]ock\(/.test(readFileSync(file, "utf8"))
const sharedUnit = readdirSync("test/unit")
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => `test/unit/${name}`)
  .filter((file) => !mocksModules(file))

export default defineConfig({
  test: {
    // e2e files each start a real OpenCode server; two at a time suits a 2-core machine.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".tmp/vitest-results.json" }]] : ["default"],
    projects: [
      { extends: true, test: { name: "unit", include: sharedUnit, isolate: false } },
      {
        extends: true,
        test: { name: "isolated", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...sharedUnit] },
      },
    ],
  },
})
