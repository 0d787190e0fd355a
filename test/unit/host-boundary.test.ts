// The loop reaches OpenCode through the host port (src/host/port.ts) only: the OpenCode 1.x adapter
// (src/opencode/), the plugin hooks (src/hooks/, src/plugin.ts, src/index.ts) and the TUI plugin
// (src/tui/) are the only source files that take a value from OpenCode's packages or call an SDK
// client. Everywhere else OpenCode's types may describe data, nothing more. Read with TypeScript's
// parser, so `import type`, `import { type X }`, dynamic imports and `require` are told apart.
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, sep } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { packageDir } from "../harness/harness.js"

const src = join(packageDir(), "src")

/**
 * Where OpenCode's packages may be used as values: the adapters (the loop's, and src/opencode/server.ts
 * for what `ralph-loop run` drives from outside) and the hooks.
 */
const ADAPTERS = ["opencode/", "hooks/", "tui/", "plugin.ts", "index.ts"]

const OPENCODE_PACKAGE = /^@opencode-ai\/(sdk|plugin)(\/|$)/

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

const isOpencode = (node: ts.Node | undefined): boolean =>
  node !== undefined && ts.isStringLiteralLike(node) && OPENCODE_PACKAGE.test(node.text)

/** An import that brings in at least one value (not only types). */
function importsValue(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return true // `import "@opencode-ai/sdk"`: runs the module
  if (clause.isTypeOnly) return false
  if (clause.name) return true
  const bindings = clause.namedBindings
  if (!bindings) return false
  if (ts.isNamespaceImport(bindings)) return true
  return bindings.elements.some((element) => !element.isTypeOnly)
}

/** A re-export that passes on at least one value. */
function exportsValue(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return false
  const clause = node.exportClause
  return !clause || !ts.isNamedExports(clause) || clause.elements.some((e) => !e.isTypeOnly)
}

/** How `node` uses OpenCode's packages as a value, or an SDK client; undefined when it does not. */
function use(node: ts.Node): string | undefined {
  if (ts.isImportDeclaration(node) && isOpencode(node.moduleSpecifier) && importsValue(node.importClause)) {
    return "imports a value"
  }
  if (ts.isExportDeclaration(node) && isOpencode(node.moduleSpecifier) && exportsValue(node)) {
    return "re-exports a value"
  }
  if (ts.isImportEqualsDeclaration(node) && !node.isTypeOnly && ts.isExternalModuleReference(node.moduleReference)) {
    return isOpencode(node.moduleReference.expression) ? "requires it" : undefined
  }
  if (ts.isCallExpression(node) && isOpencode(node.arguments[0])) {
    if (node.expression.kind === ts.SyntaxKind.ImportKeyword) return "imports it dynamically"
    if (ts.isIdentifier(node.expression) && node.expression.text === "require") return "requires it"
  }
  // `x.client.y`: a call on an SDK client (OpenCode hands the plugin one as `input.client`).
  const callee = ts.isPropertyAccessExpression(node) ? node.expression : undefined
  if (callee && ts.isPropertyAccessExpression(callee) && callee.name.text === "client") {
    return `calls .client.${(node as ts.PropertyAccessExpression).name.text}`
  }
  return undefined
}

/** What in `text` uses OpenCode's packages as values, or an SDK client: one line per use. */
function hostUses(name: string, text: string): string[] {
  const kind = name.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const file = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, false, kind)
  const uses: string[] = []
  const visit = (node: ts.Node): void => {
    const found = use(node)
    if (found) uses.push(`${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: ${found}`)
    ts.forEachChild(node, visit)
  }
  visit(file)
  return uses
}

describe("the host port is the only way to OpenCode", () => {
  const files = sources(src).map((path) => ({
    name: relative(src, path).split(sep).join("/"),
    text: readFileSync(path, "utf8"),
  }))
  const isAdapter = (name: string) => ADAPTERS.some((a) => (a.endsWith("/") ? name.startsWith(a) : name === a))
  const outside = files.filter((f) => !isAdapter(f.name))

  it("outside the adapters, no file uses OpenCode's packages as values or calls an SDK client", () => {
    const using: Record<string, string[]> = {}
    for (const f of outside) {
      const uses = hostUses(f.name, f.text)
      if (uses.length > 0) using[f.name] = uses
    }
    expect(using).toEqual({})
  })

  it("tells a value from a type, and sees dynamic imports, require and client calls", () => {
    const uses = (text: string) => hostUses("probe.ts", text).length
    expect(uses('import type { Session } from "@opencode-ai/sdk"')).toBe(0)
    expect(uses('import { type Session, type Todo } from "@opencode-ai/sdk/v2"')).toBe(0)
    expect(uses('export type { Part } from "@opencode-ai/sdk"')).toBe(0)
    expect(uses('import { createOpencodeClient } from "@opencode-ai/sdk"')).toBe(1)
    expect(uses('import { type Session, createOpencodeClient } from "@opencode-ai/sdk/v2"')).toBe(1)
    expect(uses('import * as sdk from "@opencode-ai/sdk"')).toBe(1)
    expect(uses('import "@opencode-ai/plugin"')).toBe(1)
    expect(uses('export { tool } from "@opencode-ai/plugin"')).toBe(1)
    expect(uses('const m = await import("@opencode-ai/sdk")')).toBe(1)
    expect(uses('const m = require("@opencode-ai/plugin")')).toBe(1)
    expect(uses("await input.client.session.list()")).toBe(1)
    expect(uses("await this.client.app.log({})")).toBe(1)
    expect(uses('import { sendControl } from "../control/client.js"; const client = 1')).toBe(0)
  })
})
