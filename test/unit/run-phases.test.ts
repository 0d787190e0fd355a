import { describe, expect, it } from "vitest"
import { nothingSentDetail, signalMeaning, type RunPhase } from "../../src/cli/run/phases.js"

const PHASES: readonly RunPhase[] = ["preflight", "booting", "connecting", "creating-session", "following"]

describe("what a signal means in each phase of ralph-loop run", () => {
  it("up to the /ralph request nothing is sent after it; from then on the loop is stopped through the plugin", () => {
    expect(PHASES.map((p) => signalMeaning(p, false))).toEqual([
      "nothing-sent",
      "nothing-sent",
      "nothing-sent",
      "nothing-sent",
      "stop-the-loop",
    ])
  })

  it("a --resume in a server the run started: the loop is the server's once it booted (it takes the loop back at its start)", () => {
    expect(PHASES.map((p) => signalMeaning(p, true))).toEqual([
      "nothing-sent",
      "nothing-sent",
      "stop-the-loop",
      "stop-the-loop",
      "stop-the-loop",
    ])
  })

  it("the end's detail says where the signal came and that nothing was started or resumed", () => {
    expect(nothingSentDetail("preflight", "SIGINT", false, false)).toBe(
      "SIGINT before the server was started; no loop was started",
    )
    expect(nothingSentDetail("booting", "SIGTERM", false, true)).toBe(
      "SIGTERM while waiting for the server; no loop was started",
    )
    expect(nothingSentDetail("booting", "SIGINT", true, false)).toBe(
      "SIGINT while OpenCode booted; the loop was not resumed",
    )
    expect(nothingSentDetail("creating-session", "SIGINT", false, true)).toBe(
      "SIGINT before /ralph was sent; no loop was started",
    )
    expect(nothingSentDetail("connecting", "SIGHUP", true, true)).toBe(
      "SIGHUP before the resume was sent; the loop was not resumed",
    )
  })
})
