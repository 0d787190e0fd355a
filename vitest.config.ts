import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // e2e files each start a real OpenCode server; two at a time suits a 2-core machine.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ["default", ["json", { outputFile: ".tmp/vitest-results.json" }]] : ["default"],
  },
})
