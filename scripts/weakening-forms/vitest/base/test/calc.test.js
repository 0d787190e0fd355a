import { describe, expect, test } from "vitest"
import { add, multiply } from "../src/calc.js"

describe("calc", () => {
  test("adds", () => {
    expect(add(1, 2)).toBe(3)
  })

  test("multiplies", () => {
    expect(multiply(2, 3)).toBe(6)
  })
})
