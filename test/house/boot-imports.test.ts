// What OpenCode loads while it boots: the entry (src/index.ts) and what it imports at run time. The
// loop's machinery (src/instance.ts, zod, the SDK) is imported later, when a hook first has work
// (src/plugin.ts): a module of the entry's that imports one of them costs every OpenCode start
// 20-50 ms (bench: load). Type-only imports are erased (verbatimModuleSyntax) and do not count.
import { readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { packageDir } from "../harness/harness.js"

const src = join(packageDir(), "src")

/** The specifiers `file` imports or re-exports at run time. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
  const found: string[] = []
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause
      const named = clause?.namedBindings
      const typeOnly =
        clause?.isTypeOnly === true ||
        (clause !== undefined &&
          clause.name === undefined &&
          named !== undefined &&
          ts.isNamedImports(named) &&
          named.elements.length > 0 &&
          named.elements.every((element) => element.isTypeOnly))
      if (!typeOnly) found.push((statement.moduleSpecifier as ts.StringLiteral).text)
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
      found.push((statement.moduleSpecifier as ts.StringLiteral).text)
    }
  }
  return found
}

/** Every module loaded with `entry` (static imports only: a dynamic import() is the deferral itself). */
function bootClosure(entry: string): { modules: string[]; packages: string[] } {
  const modules = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string): void => {
    if (modules.has(file)) return
    modules.add(file)
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")))
      else packages.add(specifier)
    }
  }
  visit(entry)
  return { modules: [...modules].map((file) => relative(src, file)).sort(), packages: [...packages].sort() }
}

describe("what OpenCode loads while it boots", () => {
  const boot = bootClosure(join(src, "index.ts"))

  it("reads the entry's imports (the closure reaches the hooks it registers)", () => {
    expect(boot.modules).toContain("plugin.ts")
    expect(boot.modules).toContain("host/events.ts")
  })

  it("is neither the machinery nor zod nor the SDK", () => {
    expect(boot.modules).not.toContain("instance.ts")
    expect(boot.packages.filter((name) => name === "zod" || name.startsWith("@opencode-ai/"))).toEqual([])
  })

  it("stays a handful of modules", () => {
    expect(boot.modules.length).toBeLessThanOrEqual(16)
  })
})
