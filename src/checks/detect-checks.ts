// With no checks configured, the plugin looks for the project's own: each only if its tool is
// actually installed, so a missing tool never becomes a failing "check".
import { existsSync, readFileSync } from "node:fs"
import { delimiter, join } from "node:path"
import type { CheckConfig } from "../config/schema.js"

const onPath = (tool: string) =>
  (process.env.PATH ?? "").split(delimiter).some((dir) => dir && existsSync(join(dir, tool)))
const localBin = (directory: string, tool: string) => existsSync(join(directory, "node_modules", ".bin", tool))

export function detectChecks(directory: string): CheckConfig[] {
  const checks: CheckConfig[] = []
  const file = (name: string) => existsSync(join(directory, name))
  if (file("tsconfig.json") && localBin(directory, "tsc"))
    checks.push({ name: "typecheck", command: "npx --no-install tsc --noEmit", kind: "typecheck" })
  const eslintConfigs = [
    "eslint.config.js",
    "eslint.config.mjs",
    "eslint.config.cjs",
    "eslint.config.ts",
    ".eslintrc",
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.json",
    ".eslintrc.yml",
  ]
  if (eslintConfigs.some(file) && localBin(directory, "eslint"))
    checks.push({ name: "lint", command: "npx --no-install eslint .", kind: "lint" })
  if (file("package.json") && onPath("npm")) {
    try {
      const scripts = JSON.parse(readFileSync(join(directory, "package.json"), "utf8"))?.scripts ?? {}
      if (typeof scripts.test === "string" && !/no test specified/.test(scripts.test))
        checks.push({ name: "test", command: "npm test", kind: "test" })
    } catch {
      // an unreadable package.json is not a check
    }
  }
  if (file("pyproject.toml")) {
    if (onPath("ruff")) checks.push({ name: "ruff", command: "ruff check .", kind: "lint" })
    if (onPath("pytest")) checks.push({ name: "pytest", command: "pytest -q", kind: "test" })
  }
  if (file("sgconfig.yml") && (onPath("ast-grep") || onPath("sg")))
    checks.push({ name: "ast-grep", command: `${onPath("ast-grep") ? "ast-grep" : "sg"} scan`, kind: "security" })
  return checks
}
