// The soak's consistency checks: each one finds what it is for (a lost iteration, a double prompt,
// a foreign one, an unexplained resume, an orphan session, a missing transcript) and passes a run
// with none — including OpenCode's own retry of a request the model answered 429.
import { describe, expect, it } from "vitest"
import type { Loop } from "../../src/loop/loop.js"
import {
  distinctPrompts,
  ledger,
  sessionCheck,
  type FaultRecord,
  type LoopOutcome,
  type RequestRecord,
} from "../soak/ledger.js"
import { promptInfo, type PromptKind } from "../soak/soak-model.js"
import { loop } from "./fixtures.js"

let clock = 0
/** The clock, 10 ms on. */
const tick = (): number => {
  clock += 10
  return clock
}
const prompt = (
  token: string,
  iteration: number,
  kind: PromptKind,
  extra: Partial<RequestRecord> = {},
): RequestRecord => ({
  at: tick(),
  kind: "main",
  lastRole: "user",
  status: 200,
  info: { of: "loop", token, iteration, kind },
  tokens: [token],
  key: `${token}-${iteration}-${kind}-${clock}`,
  ...extra,
})
const toolReply = (token: string, iteration: number): RequestRecord => ({
  ...prompt(token, iteration, "next"),
  lastRole: "tool",
})
const completed = (token: string, iteration: number): LoopOutcome => ({
  token,
  state: loop({ phase: "stopped", stopReason: "completed", iteration, retiring: [] }) as Loop,
  target: iteration,
  cancelled: false,
})

describe("soak ledger", () => {
  it("passes a loop prompted once per iteration, OpenCode's retries of a 429 not counted", () => {
    const requests = [
      prompt("loop-a", 1, "first"),
      toolReply("loop-a", 1),
      prompt("loop-a", 2, "next", { status: 429, key: "same" }),
    ]
    requests.push({ ...requests[2]!, at: tick(), status: 200 }, toolReply("loop-a", 2), prompt("loop-a", 3, "next"))
    const result = ledger(requests, [completed("loop-a", 3)], [])
    expect(result).toMatchObject({ prompts: 3, lost: [], double: [], foreign: [], unfinished: [] })
    expect(distinctPrompts(requests)).toHaveLength(3)
  })

  it("finds a lost iteration, and a state that counts further than the prompts", () => {
    const requests = [prompt("loop-a", 1, "first"), prompt("loop-a", 3, "next")]
    expect(ledger(requests, [completed("loop-a", 3)], []).lost).toEqual(["loop-a: iteration(s) 2 of 3 never prompted"])
    expect(ledger(requests, [completed("loop-a", 2)], []).lost).toEqual([
      "loop-a: iteration(s) 2 of 2 never prompted",
      "loop-a: prompted iteration(s) 3, but its state stops at 2",
    ])
  })

  it("finds an iteration prompted twice, a second first prompt and an iteration going back", () => {
    const requests = [
      prompt("loop-a", 1, "first"),
      prompt("loop-a", 2, "next"),
      prompt("loop-a", 2, "next"),
      prompt("loop-a", 1, "first"),
    ]
    expect(ledger(requests, [completed("loop-a", 2)], []).double).toEqual([
      "loop-a: iteration 1 prompted after iteration 2",
      `loop-a: iteration 1 prompted 2 times (in session ? each time; different conversations; at ${requests[0]!.at}: HTTP 200; at ${requests[3]!.at}: HTTP 200)`,
      `loop-a: iteration 2 prompted 2 times (in session ? each time; different conversations; at ${requests[1]!.at}: HTTP 200; at ${requests[2]!.at}: HTTP 200)`,
      "loop-a: 2 first prompts",
    ])
  })

  it("the same conversation sent again in the same session is OpenCode's retry, cut off or not; in another session it is a second prompt", () => {
    const first = prompt("loop-a", 1, "first", { session: "ses_1" })
    const cut = prompt("loop-a", 2, "next", { session: "ses_2", key: "k2", cut: true })
    const again = { ...cut, at: tick(), cut: false }
    expect(ledger([first, cut, again], [completed("loop-a", 2)], []).double).toEqual([])
    const whole = { ...cut, cut: false }
    expect(ledger([first, whole, again], [completed("loop-a", 2)], []).double).toEqual([])
    const elsewhere = { ...again, session: "ses_3" }
    expect(ledger([first, cut, elsewhere], [completed("loop-a", 2)], []).double).toEqual([
      `loop-a: iteration 2 prompted 2 times (in sessions ses_2, ses_3; the same conversation each time; at ${cut.at}: HTTP 200, cut off; at ${elsewhere.at}: HTTP 200)`,
    ])
    const later = { ...whole, at: tick(), key: "k2 and its answer" }
    expect(ledger([first, whole, later], [completed("loop-a", 2)], []).double).toEqual([
      `loop-a: iteration 2 prompted 2 times (in session ses_2 each time; different conversations; at ${whole.at}: HTTP 200; at ${later.at}: HTTP 200)`,
    ])
  })

  it("counts a resume as double unless a fault since the loop's last prompt explains it", () => {
    const first = prompt("loop-a", 1, "first")
    const resume = prompt("loop-a", 1, "resume")
    expect(ledger([first, resume], [completed("loop-a", 1)], []).double).toEqual([
      `loop-a: iteration 1 resumed at ${resume.at} with no fault since its last prompt`,
    ])
    const kill: FaultRecord = { kind: "kill", at: first.at + 1, endedAt: first.at + 2 }
    expect(ledger([first, resume], [completed("loop-a", 1)], [kill])).toMatchObject({ double: [], resumes: 1 })
    const escElsewhere: FaultRecord = { kind: "esc", token: "loop-b", at: first.at + 1, endedAt: first.at + 2 }
    expect(ledger([first, resume], [completed("loop-a", 1)], [escElsewhere]).double).toHaveLength(1)
    const limited = { ...toolReply("loop-a", 1), at: first.at + 1, status: 429 }
    expect(ledger([first, limited, resume], [completed("loop-a", 1)], []).double).toEqual([])
  })

  it("finds a request that carries two loops' tokens, and a prompt for a loop the soak never started", () => {
    const requests = [prompt("loop-a", 1, "first", { tokens: ["chat-c00", "loop-a"] }), prompt("loop-z", 1, "first")]
    expect(ledger(requests, [completed("loop-a", 1)], []).foreign).toEqual([
      `main request at ${requests[0]!.at} carries chat-c00 + loop-a`,
      "a prompt for loop-z, which is no loop of the soak",
    ])
  })

  it("finds a loop not in its named final state, and a chat message sent twice", () => {
    const paused: LoopOutcome = { ...completed("loop-a", 1), state: loop({ phase: "paused", iteration: 1 }) as Loop }
    const chat = (message: number): RequestRecord => ({
      ...prompt("chat-c00", 0, "next"),
      info: { of: "chat", token: "chat-c00", message },
    })
    const result = ledger([prompt("loop-a", 1, "first"), chat(1), chat(1), chat(2)], [paused], [])
    expect(result.unfinished).toEqual(["loop-a: paused, 0 session(s) still to retire; expected stopped (completed)"])
    expect(result.chats).toEqual({ messages: 2, double: ["chat-c00 message 1 sent 2 times"] })
  })

  it("reads prompts as the plugin writes them", () => {
    expect(promptInfo("loop-w03: record each step in work/w03.txt\n\nWhen the task is completely done")).toEqual({
      of: "loop",
      token: "loop-w03",
      iteration: 1,
      kind: "first",
    })
    expect(promptInfo("[Ralph loop · iteration 7 of 1000 · fresh session]\n\n## Task\nloop-w03: …")).toEqual({
      of: "loop",
      token: "loop-w03",
      iteration: 7,
      kind: "next",
    })
    expect(promptInfo("[Ralph loop · iteration 7 of 1000 · resuming]\n\n## Task\nloop-w03: …")).toMatchObject({
      iteration: 7,
      kind: "resume",
    })
    expect(promptInfo("[ralph-loop control] The Ralph loop ended")).toEqual({ of: "control" })
    expect(promptInfo("chat-c02 message 4: tell me one short fact")).toEqual({
      of: "chat",
      token: "chat-c02",
      message: 4,
    })
  })
})

describe("soak session check", () => {
  it("finds orphan sessions, sessions with another loop's messages, and deleted sessions without their files", () => {
    const result = sessionCheck({
      listed: [
        { id: "ses_1", userTexts: ["loop-a: task"] },
        { id: "ses_2", userTexts: ["loop-a: task", "chat-c00 message 1"] },
        { id: "ses_3", userTexts: ["[Ralph loop · iteration 2 of 9 · fresh session] loop-b"] },
        { id: "ses_4", title: "Ralph 3/9 · loop-b", userTexts: [] },
        { id: "ses_old", userTexts: ["loop-a: task"] },
      ],
      owners: new Map([
        ["ses_1", "loop-a"],
        ["ses_2", "loop-a"],
        ["ses_old", "loop-a"],
      ]),
      retired: ["ses_old"],
      known: ["ses_1", "ses_2", "ses_3", "ses_old", "ses_gone", "ses_gone2"],
      hasFile: (id, file) => id === "ses_gone" || file === "ralph_summary.md",
    })
    expect(result.orphans).toEqual([
      "ses_3 ([Ralph loop · iteration 2 of 9 · fresh session] loop-b)",
      'ses_4 "Ralph 3/9 · loop-b" (no message)',
      "ses_old (an earlier session of a recreate loop, never deleted)",
    ])
    expect(result.foreign).toEqual(["ses_2 of loop-a has messages of chat-c00"])
    expect(result.missingFiles).toEqual(["ses_gone2/transcript.json"])
    expect(result.deleted).toBe(2)
  })
})
