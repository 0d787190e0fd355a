// The docs a user reads are what the code says: docs/configuration.md is what the settings schema
// gives (`npm run docs` rewrites it), and the README is a front door whose links all lead somewhere.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { describe, expect, it } from "vitest"
import { configurationReference } from "../../src/config/reference.js"
import { SETTING_KEYS } from "../../src/config/schema.js"
import { packageDir } from "../harness/harness.js"

const read = (path: string) => readFileSync(join(packageDir(), path), "utf8")

describe("docs/configuration.md", () => {
  it("is what the settings schema gives (run `npm run docs` after changing a setting)", () => {
    expect(read("docs/configuration.md")).toBe(configurationReference())
  })

  it("has a row for every setting, with its description", () => {
    const doc = configurationReference()
    for (const key of SETTING_KEYS)
      expect(doc).toMatch(new RegExp(`^\\| \`${key}\` \\| .+ \\| .+ \\| .{10,} \\|$`, "m"))
  })
})

/** Every relative link of a markdown file: [text](target), outside code. */
function links(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "")
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((target) => !/^[a-z]+:/.test(target))
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-")

function brokenLinks(file: string): string[] {
  const broken: string[] = []
  for (const link of links(read(file))) {
    const [path, anchor] = link.split("#") as [string, string | undefined]
    const target = path ? join(dirname(file), path) : file
    if (!existsSync(join(packageDir(), target))) broken.push(`${link} (no ${target})`)
    else if (anchor && target.endsWith(".md")) {
      const headings = [...read(target).matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1] as string))
      if (!headings.includes(anchor)) broken.push(`${link} (no heading #${anchor} in ${target})`)
    }
  }
  return broken
}

describe("the README", () => {
  it("is a front door of at most 12 KB", () => {
    expect(Buffer.byteLength(read("README.md"))).toBeLessThanOrEqual(12 * 1024)
  })

  it("and the docs: every relative link leads to a file (and heading) that exists", () => {
    const files = [
      "README.md",
      ...readdirSync(join(packageDir(), "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ]
    expect(files.flatMap((file) => brokenLinks(file).map((b) => `${file}: ${b}`))).toEqual([])
    expect(links(read("README.md")).length).toBeGreaterThan(15)
  })
})
