import { describe, expect, it } from "vitest"
import { keptPromise, promisePattern } from "../../src/loop/completion.js"

describe("keptPromise", () => {
  it("finds the tag in the assistant's text", () => {
    expect(keptPromise(["All done.\n<promise>DONE</promise>"], "DONE")).toBe(true)
  })

  it("folds whitespace and case on both sides", () => {
    expect(keptPromise(["<promise>\n  done \t</promise>"], "DONE")).toBe(true)
    expect(keptPromise(["<promise>task   complete</promise>"], " TASK COMPLETE ")).toBe(true)
  })

  it("needs the tag, not the bare word", () => {
    expect(keptPromise(["DONE"], "DONE")).toBe(false)
    expect(keptPromise(["I am done with part one"], "DONE")).toBe(false)
    expect(keptPromise(["<promise>NOT DONE</promise>"], "DONE")).toBe(false)
    expect(keptPromise(["<promise>DONE!</promise>"], "DONE")).toBe(false)
  })

  it("treats regex metacharacters in the word literally", () => {
    expect(keptPromise(["<promise>a.b</promise>"], "a.b")).toBe(true)
    expect(keptPromise(["<promise>axb</promise>"], "a.b")).toBe(false)
    expect(keptPromise(["<promise>ALL (DONE)?</promise>"], "ALL (DONE)?")).toBe(true)
    expect(keptPromise(["<promise>ALL DONE</promise>"], "ALL (DONE)?")).toBe(false)
    expect(() => promisePattern("[unclosed")).not.toThrow()
  })

  it("looks at every text of the turn", () => {
    expect(keptPromise(["step one", "step two <promise>DONE</promise>"], "DONE")).toBe(true)
    expect(keptPromise([], "DONE")).toBe(false)
  })
})

describe("completionMarkers", () => {
  it("a marker counts as the promise, literally and wherever it is in the text", () => {
    expect(keptPromise(["all done <jikime:done />"], "DONE", ["<jikime:done />"])).toBe(true)
    expect(keptPromise(["<JIKIME:DONE />"], "DONE", ["<jikime:done />"])).toBe(false)
    expect(keptPromise(["<jikime:done/>"], "DONE", ["<jikime:done />"])).toBe(false)
    expect(keptPromise(["<promise>DONE</promise>"], "DONE", ["<jikime:done />"])).toBe(true)
    expect(keptPromise(["nothing"], "DONE", [])).toBe(false)
  })
})
