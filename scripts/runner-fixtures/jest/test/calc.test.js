const { add, multiply } = require("../src/calc.js")

describe("calc", () => {
  test("adds small numbers", () => {
    expect(add(1, 2)).toBe(3)
    expect(add(2, 2)).toBe(5) // fault:A
  })

  test("adds negative numbers", () => {
    expect(add(-1, -2)).toBe(-3)
    expect(add(-1, -2)).toBe(3) // fault:B
  })

  describe("multiply", () => {
    test("multiplies", () => {
      expect(multiply(3, 4)).toBe(12)
      expect(multiply(3, 4)).toBe(7) // fault:C
    })
  })
})
