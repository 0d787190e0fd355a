import assert from "node:assert/strict"
import { test } from "node:test"
import { formatTotal } from "../src/calc.js"
import { missing } from "../src/missing.js" // fault:E

test("formats a total", () => {
  assert.equal(formatTotal([1, 2]), "total: 3")
  assert.equal(formatTotal([1, 2]), "total: 4") // fault:D
})
