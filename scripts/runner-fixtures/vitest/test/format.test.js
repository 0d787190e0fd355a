import { expect, test } from "vitest"
import { formatTotal } from "../src/calc.js"
import { missing } from "../src/missing.js" // fault:E

test("formats a total", () => {
  expect(formatTotal([1, 2])).toBe("total: 3")
  expect(formatTotal([1, 2])).toBe("total: 4") // fault:D
})
