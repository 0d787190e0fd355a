// "Inside the project" is one rule, used for writes, protected folders and the summaryPath setting.
import { describe, expect, it } from "vitest"
import { isInside, isStrictlyInside } from "../../src/project/inside.js"

describe("inside the project", () => {
  it("accepts the root and what lies below it, relative or absolute", () => {
    for (const path of ["/p", "/p/a", "a/b", "./a", "a/../b", "/p/..a/x"]) expect(isInside("/p", path), path).toBe(true)
  })

  it("refuses what lies above or beside it", () => {
    for (const path of ["..", "../p2", "/p2/a", "/", "a/../../x", "/tmp"])
      expect(isInside("/p", path), path).toBe(false)
  })

  it("strictly inside: the root itself is not", () => {
    expect(isStrictlyInside("/p", ".")).toBe(false)
    expect(isStrictlyInside("/p", "/p/")).toBe(false)
    expect(isStrictlyInside("/p", ".opencode/sessions")).toBe(true)
  })
})
