const { formatTotal } = require("../src/calc.js")
const { missing } = require("./missing.js") // fault:E

test("formats a total", () => {
  expect(formatTotal([1, 2])).toBe("total: 3")
  expect(formatTotal([1, 2])).toBe("total: 4") // fault:D
})
