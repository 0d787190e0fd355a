// Setting properties in place: values replaced where they stand, new properties laid out as the
// object's own, removals as jsonc-parser makes them — and no other byte touched.
import { applyEdits, parse } from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { propertyEdits, type ObjectChange } from "../../src/files/json-edit.js"

const edit = (text: string, ...changes: ObjectChange[]) => applyEdits(text, propertyEdits(text, changes))

describe("propertyEdits", () => {
  it("replaces a value where it stands, whatever its kind was", () => {
    expect(
      edit('{ "a": [1, {"b": 2}], "passes": false, "c": 3 }', { at: [], set: [{ key: "passes", value: true }] }),
    ).toBe('{ "a": [1, {"b": 2}], "passes": true, "c": 3 }')
    expect(edit('[{"status":{"x":1}}]', { at: [0], set: [{ key: "status", value: "done" }] })).toBe(
      '[{"status":"done"}]',
    )
  })

  it("adds properties as the object lays out its own: inline, minified, one per line, CRLF", () => {
    expect(edit('[{ "id": 1, "t": "x" }]', { at: [0], set: [{ key: "passes", value: true }] })).toBe(
      '[{ "id": 1, "t": "x", "passes": true }]',
    )
    expect(edit('[{ "id": 1 }]', { at: [0], set: [{ key: "passes", value: true }] })).toBe(
      '[{ "id": 1, "passes": true }]',
    )
    expect(edit('[{"id":1}]', { at: [0], set: [{ key: "passes", value: true }] })).toBe('[{"id":1,"passes":true}]')
    expect(
      edit('{\r\n    "id": 1\r\n}', {
        at: [],
        set: [
          { key: "a", value: 1 },
          { key: "b", value: "two" },
        ],
      }),
    ).toBe('{\r\n    "id": 1,\r\n    "a": 1,\r\n    "b": "two"\r\n}')
    expect(edit("{}", { at: [], set: [{ key: "passes", value: false }] })).toBe('{ "passes": false }')
  })

  it("keeps a comment that ends the last property's line with that property", () => {
    expect(
      edit('{\n  "id": 1, // first\n  "t": "x" // the title\n}', { at: [], set: [{ key: "passes", value: true }] }),
    ).toBe('{\n  "id": 1, // first\n  "t": "x", // the title\n  "passes": true\n}')
  })

  it("removes a property with its comma", () => {
    expect(edit('{ "a": 1, "iteration": 3, "b": 2 }', { at: [], set: [{ key: "iteration", value: undefined }] })).toBe(
      '{ "a": 1, "b": 2 }',
    )
    expect(edit('{ "iteration": 3, "b": 2 }', { at: [], set: [{ key: "iteration", value: undefined }] })).toBe(
      '{ "b": 2 }',
    )
  })

  it("edits only the objects at the paths given, also deep and after comments and escapes", () => {
    const text = '{ /* "x": { */ "k\\"ey": "}", "list": [ {"id": "a"}, {"id": "b", "deep": [{"id": "c"}]} ] }'
    const result = edit(text, { at: ["list", 1, "deep", 0], set: [{ key: "done", value: true }] })
    expect(result).toBe(
      '{ /* "x": { */ "k\\"ey": "}", "list": [ {"id": "a"}, {"id": "b", "deep": [{"id": "c", "done": true}]} ] }',
    )
    expect(parse(result).list[1].deep[0]).toEqual({ id: "c", done: true })
  })

  it("several objects in one pass, whatever order they are asked in; nothing after the last is read", () => {
    const text = '[{"id": 1}, {"id": 2, "x": [1, {"y": 2}]}, {"id": 3}] trailing garbage is never reached'
    const result = edit(
      text,
      { at: [2], set: [{ key: "done", value: true }] },
      { at: [0], set: [{ key: "done", value: false }] },
    )
    expect(result).toBe(
      '[{"id": 1, "done": false}, {"id": 2, "x": [1, {"y": 2}]}, {"id": 3, "done": true}] trailing garbage is never reached',
    )
  })
})
