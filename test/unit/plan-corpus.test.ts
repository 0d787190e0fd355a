// The plan corpus: plan files in the shapes other Ralph tools write (written for this project from
// those shapes, in test/fixtures/plans/). Each is read as the loop would read it, its stories in the
// order the loop would take them; a write-back of "this story is done" changes only the item's done
// field (and its notes or iteration where the shape has them) — every other byte stays; the files
// that cannot be used give one message saying what was expected and what was found.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { findNodeAtLocation, getNodeValue, parseTree, type Node } from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { locatePlan } from "../../src/plan/plan-layout.js"
import { parsePlan } from "../../src/plan/plan-reader.js"
import { markCurrentDone, workOrder, type PlanState } from "../../src/plan/plan.js"
import { doneNote, writeBack } from "../../src/plan/write-back.js"

const DIR = join(import.meta.dirname, "..", "fixtures", "plans")
const text = (file: string) => readFileSync(join(DIR, file), "utf8")
const NOTE = doneNote({ id: "", iteration: 1, checks: ["tests"] })

interface Usable {
  shape: string
  project?: string
  /** id=title, in file order */
  stories: string[]
  done: string[]
  /** The order the loop works the stories not done. */
  order: string[]
  /** What a write-back of the first story in `order` as done changes in its item. */
  changes: Record<string, unknown>
  /** Where the file's state is a status with an in-progress word (or seed 003's shape): the next story's mark. */
  next?: Record<string, unknown>
}

const USABLE: Record<string, Usable> = {
  "01-snarktank.json": {
    shape: "userStories",
    project: "Shop",
    stories: ["US-001=Add the cart table", "US-002=Show the cart", "US-003=Check out"],
    done: ["US-001"],
    order: ["US-002", "US-003"],
    changes: { passes: true, notes: NOTE },
  },
  "02-snarktank-depends.json": {
    shape: "userStories",
    project: "API",
    stories: ["US-1=Models", "US-2=Routes", "US-3=Docs"],
    done: [],
    order: ["US-1", "US-2", "US-3"],
    changes: { passes: true, notes: NOTE },
  },
  "03-snarktank-jsonc-crlf.json": {
    shape: "userStories",
    project: "CLI tool",
    stories: ["C-1=Parse flags", "C-2=Read config été"],
    done: [],
    order: ["C-1", "C-2"],
    changes: { passes: true, notes: NOTE },
  },
  "04-seed003.json": {
    shape: "stories",
    project: "Build the shop",
    stories: ["S1=cart", "S2=checkout", "S3=receipts"],
    done: ["S1"],
    order: ["S2", "S3"],
    changes: { status: "completed", iteration: 1 },
    next: { status: "in_progress" },
  },
  "05-feature-list.json": {
    shape: "[]",
    stories: [
      "1=New chat button creates a fresh conversation",
      "2=Messages are sent with Enter",
      "3=Dark mode follows the system setting",
    ],
    done: ["3"],
    order: ["1", "2"],
    changes: { passes: true },
  },
  "06-feature-list-tabs.json": {
    shape: "[]",
    stories: ["1=GET /health answers 200", "2=GET /version answers the version"],
    done: [],
    order: ["1", "2"],
    changes: { passes: true },
  },
  "07-started-complete.json": {
    shape: "[]",
    stories: ["1=Set up the repository", "2=Write the parser", "3=Write the printer"],
    done: ["1"],
    order: ["2", "3"],
    changes: { complete: true },
  },
  "08-tested.json": {
    shape: "[]",
    stories: ["F1=login form", "F2=logout"],
    done: [],
    order: ["F1", "F2"],
    changes: { tested: true },
  },
  "09-tasks-status.json": {
    shape: "tasks",
    project: "Refactor billing",
    stories: ["T-1=Extract invoice module", "T-2=Add invoice tests", "T-3=Remove dead code"],
    done: ["T-3"],
    order: ["T-2", "T-1"],
    changes: { status: "done" },
  },
  "10-features-p-levels.json": {
    shape: "features",
    stories: ["feat-search=Search", "feat-filter=Filter", "feat-sort=Sort"],
    done: [],
    order: ["feat-sort", "feat-filter", "feat-search"],
    changes: { passes: true },
  },
  "11-items-no-done.json": {
    shape: "items",
    stories: ["10=Add a README", "20=Add a LICENSE"],
    done: [],
    order: ["10", "20"],
    changes: { passes: true },
  },
  "12-phases.json": {
    shape: "phases[].tasks",
    project: "Compiler",
    stories: ["1.1.0=Tokens", "1.2.0=Scanner", "2.1.0=AST"],
    done: ["1.1.0"],
    order: ["1.2.0", "2.1.0"],
    changes: { status: "complete" },
  },
  "13-user-stories-snake.json": {
    shape: "user_stories",
    project: "Notes app",
    stories: ["NOTE-1=Create a note", "NOTE-2=Delete a note"],
    done: [],
    order: ["NOTE-1", "NOTE-2"],
    changes: { passes: true, notes: NOTE },
  },
  "14-nested-prd.json": {
    shape: "prd.userStories",
    project: "Nested",
    stories: ["N-1=first", "N-2=second"],
    done: [],
    order: ["N-1", "N-2"],
    changes: { passes: true, notes: NOTE },
  },
  "15-stories-status-words.json": {
    shape: "stories",
    stories: ["A=alpha", "B=beta", "C=gamma", "D=delta"],
    done: ["C"],
    order: ["A", "B", "D"],
    changes: { status: "complete", iteration: 1 },
    next: { status: "in-progress" },
  },
  "16-priority-mixed.json": {
    shape: "userStories",
    stories: ["M-1=no priority", "M-2=null priority", "M-3=decimal", "M-4=string number"],
    done: [],
    order: ["M-4", "M-3", "M-1", "M-2"],
    changes: { passes: true, notes: NOTE },
  },
  "17-tasks-verification-no-ids.json": {
    shape: "tasks",
    stories: ["1=Add rate limiting", "2=Add request ids", "3=Log slow requests"],
    done: ["3"],
    order: ["1", "2"],
    changes: { done: true },
  },
  "18-description-only.json": {
    shape: "items",
    stories: [
      "1=Make the build reproducible: pin every dependency and commit the lockfile so th…",
      "2=Cache the node modules in CI",
    ],
    done: [],
    order: ["1", "2"],
    changes: { passes: true },
  },
  "19-nested-features.json": {
    shape: "plan.features",
    project: "Mobile",
    stories: ["MOB-1=Offline mode", "MOB-2=Push notifications"],
    done: [],
    order: ["MOB-1", "MOB-2"],
    changes: { state: "completed" },
  },
  "20-minified.json": {
    shape: "userStories",
    stories: ["X1=one", "X2=two"],
    done: [],
    order: ["X1", "X2"],
    changes: { passes: true, notes: NOTE },
  },
  "21-dependencies-numbers.json": {
    shape: "[]",
    stories: ["1=schema", "2=seed data", "3=api"],
    done: [],
    order: ["1", "2", "3"],
    changes: { passes: true },
  },
  "22-status-mixed-case.json": {
    shape: "tasks",
    stories: ["ops-1=Alerting", "ops-2=Dashboards", "ops-3=Runbooks"],
    done: ["ops-1"],
    order: ["ops-2", "ops-3"],
    changes: { status: "Done" },
  },
  "23-escapes-unknown-fields.json": {
    shape: "userStories",
    stories: ['E-1=Quote "handling" and \\ paths'],
    done: [],
    order: ["E-1"],
    changes: { passes: true, notes: NOTE },
  },
  "24-phases-stories.json": {
    shape: "phases[].stories",
    stories: ["P1-A=login", "P2-A=profile"],
    done: [],
    order: ["P1-A", "P2-A"],
    changes: { passes: true },
  },
  "25-blocked-by.json": {
    shape: "stories",
    stories: ["W-2=wire it", "W-1=build it"],
    done: [],
    order: ["W-1", "W-2"],
    changes: { status: "completed", iteration: 1 },
    next: { status: "in_progress" },
  },
  "26-one-criterion-string.json": {
    shape: "features",
    stories: ["only=The one feature"],
    done: [],
    order: ["only"],
    changes: { passes: true },
  },
}

const UNUSABLE: Record<string, string> = {
  "90-invalid-comma.json": "not valid JSON: line 3, column 22: CommaExpected",
  "91-invalid-truncated.json": "not valid JSON: line 3, column 1: ValueExpected",
  "92-empty-stories.json": 'found "userStories": 0 items — a plan needs at least one story',
  "93-empty-array.json": "found a top-level array: 0 items — a plan needs at least one story",
  "94-no-title.json": 'found "tasks": 3 items, but item 3 (T3) has neither a title nor a description',
  "95-no-list.json":
    'expected a list of stories — a top-level array, or "userStories", "user_stories", "stories", "tasks", "features", "items", "phases" (also one level down, as in {"prd": {…}}); found an object with the keys "project", "goal"',
  "96-tasks-not-list.json": 'found "tasks", but it is a string, not a list of stories',
  "97-bad-priority.json":
    'found a top-level array: 1 item, but item 1 has "priority" that is not a number, "high", "medium", "low" (or critical, lowest) or P0–P4 (it is "whenever")',
}

function stateOf(file: string): PlanState {
  const read = parsePlan(text(file))
  if (!read.ok) throw new Error(read.problems.join("; "))
  const done = read.plan.stories
    .filter((s) => read.plan.doneInFile.includes(s.id))
    .map((s) => ({ id: s.id, iteration: 0, checks: [] }))
  return { file, shape: read.plan.shape, stories: read.plan.stories, done }
}

const order = (plan: PlanState) => workOrder(plan.stories, new Set(plan.done.map((d) => d.id))).map((s) => s.id)

/** The item's node in the file, found where the reader found it. */
function itemNode(source: string, id: string): Node {
  const root = parseTree(source, [], { allowTrailingComma: true }) as Node
  const located = locatePlan(getNodeValue(root))
  if (!located.ok) throw new Error(located.problem)
  const read = parsePlan(source)
  if (!read.ok) throw new Error(read.problems.join("; "))
  const index = read.plan.stories.findIndex((s) => s.id === id)
  const node = findNodeAtLocation(root, located.layout.entries[index]?.at ?? [])
  if (!node) throw new Error(`no item ${id}`)
  return node
}

/** The source text of each property of an object node, in order. */
const propertyTexts = (source: string, node: Node) =>
  (node.children ?? []).map((p) => ({
    key: p.children?.[0]?.value as string,
    text: source.slice(p.offset, p.offset + p.length),
  }))

describe("the plan corpus", () => {
  const files = readdirSync(DIR).sort()

  it("holds at least 25 usable plans in at least 10 shapes, and the unusable ones", () => {
    expect(files).toEqual([...Object.keys(USABLE), ...Object.keys(UNUSABLE)].sort())
    expect(Object.keys(USABLE).length).toBeGreaterThanOrEqual(25)
    expect(new Set(Object.values(USABLE).map((u) => u.shape)).size).toBeGreaterThanOrEqual(10)
  })

  describe.each(Object.entries(USABLE))("%s", (file, want) => {
    it("is read with its stories in file order, those done, and the order the loop takes the rest", () => {
      const read = parsePlan(text(file))
      if (!read.ok) throw new Error(read.problems.join("; "))
      expect(read.plan.shape).toBe(want.shape)
      expect(read.plan.project).toBe(want.project)
      expect(read.plan.stories.map((s) => `${s.id}=${s.title}`)).toEqual(want.stories)
      expect(read.plan.doneInFile).toEqual(want.done)
      expect(order(stateOf(file))).toEqual(want.order)
    })

    it("a write-back of its next story done changes only that item's done field (and notes or iteration where the shape has them)", () => {
      const source = text(file)
      const id = want.order[0] as string
      const next = want.next ? want.order[1] : undefined
      const result = writeBack(source, markCurrentDone(stateOf(file), 1, ["tests"]))
      if ("problem" in result) throw new Error(result.problem)
      const edited = [{ id, changes: want.changes }, ...(next ? [{ id: next, changes: want.next ?? {} }] : [])]
      expect(result.changed).toEqual(expect.arrayContaining(edited.map((e) => e.id)))
      expect(result.changed).toHaveLength(edited.length)
      const nodes = edited
        .map((e) => ({ ...e, before: itemNode(source, e.id), after: itemNode(result.text, e.id) }))
        .sort((a, b) => a.before.offset - b.before.offset)
      // every byte outside the edited items is as it was
      const outside = (text: string, spans: Node[]) =>
        [0, ...spans.flatMap((n) => [n.offset, n.offset + n.length]), text.length].flatMap((at, i, all) =>
          i % 2 === 0 && i + 1 < all.length ? [text.slice(at, all[i + 1])] : [],
        )
      expect(
        outside(
          result.text,
          nodes.map((n) => n.after),
        ),
      ).toEqual(
        outside(
          source,
          nodes.map((n) => n.before),
        ),
      )
      for (const { changes, before, after } of nodes) {
        // inside each, every other property is the same text, in the same order; the changed ones hold the new values
        const untouched = (props: Array<{ key: string; text: string }>) =>
          props.filter((p) => !(p.key in changes)).map((p) => p.text)
        expect(untouched(propertyTexts(result.text, after))).toEqual(untouched(propertyTexts(source, before)))
        expect(getNodeValue(after)).toEqual({ ...getNodeValue(before), ...changes })
      }
      // and the file now says it is done
      const reread = parsePlan(result.text)
      expect(reread.ok && reread.plan.doneInFile).toEqual(expect.arrayContaining([...want.done, id]))
    })
  })

  describe.each(Object.entries(UNUSABLE))("%s", (file, message) => {
    it("cannot be used, and says what was expected and what was found", () => {
      expect(parsePlan(text(file))).toEqual({ ok: false, problems: [message] })
    })
  })
})
