import { configDefaults, defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // test/house (issue 38's file, function and map rules) fails until the folders have moved: delete this
    // line to make it part of `npm test`. Until then `RALPH_HOUSE=1 npx vitest run test/house` runs it.
    exclude: process.env.RALPH_HOUSE ? configDefaults.exclude : [...configDefaults.exclude, "test/house/**"],
    // e2e files each start a real OpenCode server; two at a time suits a 2-core machine.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".tmp/vitest-results.json" }]] : ["default"],
  },
})
