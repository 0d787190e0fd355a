import { describe, expect, it } from "vitest"
import { rememberRequests } from "../../src/memory/remember-tags.js"

const working = (text: string) => ({ section: "working", text })
const priority = (text: string) => ({ section: "priority", text })

describe("<remember> tags in ordinary replies", () => {
  it("reads both forms in any case, with spaces in the tags, each body trimmed", () => {
    expect(
      rememberRequests(
        "Done. <remember>Run the tests with npm test</remember> and <REMEMBER  Priority >Use pnpm</Remember >",
      ),
    ).toEqual([working("Run the tests with npm test"), priority("Use pnpm")])
    expect(rememberRequests("<remember>\n  line one\n  line two\n</remember>")).toEqual([
      working("line one\n  line two"),
    ])
    expect(rememberRequests("<remember> </remember><remember>z</remember>")).toEqual([working("z")])
    expect(rememberRequests("no tag here")).toEqual([])
  })

  it("a tag opened twice runs from the first opening to the first closing", () => {
    expect(rememberRequests("<remember>a <remember>b</remember> c</remember>")).toEqual([working("a <remember>b")])
    expect(rememberRequests("<remember>never closed <remember priority>nor this")).toEqual([])
  })

  it("skips fenced blocks (backticks or tildes, indented, with a language), up to the end of the closing line", () => {
    const text = [
      "  ```ts",
      "<remember>in code</remember>",
      "  ```",
      "~~~",
      "<remember>in tildes</remember>",
      "~~~ <remember>on the closing line</remember>",
      "<remember>after</remember>",
    ].join("\n")
    expect(rememberRequests(text)).toEqual([working("after")])
  })

  it("a fence that is never closed hides nothing", () => {
    expect(rememberRequests("```\n<remember>kept</remember>")).toEqual([working("kept")])
  })

  it("skips inline code and quoted lines, also after blank lines and with CRLF line ends", () => {
    expect(rememberRequests("Use `<remember>x</remember>` then <remember>y</remember>")).toEqual([working("y")])
    expect(
      rememberRequests("<remember>a</remember>\n\n   > <remember>quoted</remember>\n<remember>b</remember>"),
    ).toEqual([working("a"), working("b")])
    expect(rememberRequests("<remember>a</remember>\r\n> <remember>quoted</remember>\r\n")).toEqual([working("a")])
  })

  it("a quoted line inside a tag is left out of its text, with the blank lines before it", () => {
    expect(rememberRequests("<remember>one\n> quoted\ntwo</remember>")).toEqual([working("one\n\ntwo")])
    expect(rememberRequests("<remember>one\n\n\n> quoted\ntwo</remember>")).toEqual([working("one\n\ntwo")])
  })
})

// Each input below took the old patterns hours (they were quadratic or worse in it: 100 KB of blank
// lines took 27 s on OpenCode's event loop); a linear reading takes milliseconds.
describe("<remember> tags in hostile replies", () => {
  it("a `<remember` and two million blank lines", () => {
    expect(rememberRequests(`<remember>x</remember>${"\n".repeat(2_000_000)}<remember>y</remember>`)).toEqual([
      working("x"),
      working("y"),
    ])
    expect(rememberRequests(`<remember${"\n".repeat(2_000_000)}`)).toEqual([])
  })

  it("an unclosed fence followed by a million blank-led lines", () => {
    expect(rememberRequests(`<remember>x</remember>\n~~~\n${"\t\n".repeat(1_000_000)}\``)).toEqual([working("x")])
  })

  it("a million and a half unclosed tags", () => {
    expect(rememberRequests(`<remember>x</remember>${"<remember>".repeat(1_600_000)}`)).toEqual([working("x")])
  })
})
