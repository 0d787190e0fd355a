import { describe, expect, it } from "vitest"
import { ControlTurns } from "../../src/engine/control-turns.js"
import type { RalphContext } from "../../src/engine/context.js"
import { eventHook } from "../../src/hooks/event.js"
import type { Loop } from "../../src/loop/loop.js"
import { DEFAULT_SETTINGS } from "../../src/config/schema.js"
import { ContinuationWatch } from "../../src/continuations/watch.js"
import { LoopManager } from "../../src/loop/manager.js"
import { PlanRequests } from "../../src/plan/requests.js"
import type { RuntimeEvent } from "../../src/host/events.js"
import { loop as makeLoop } from "./fixtures.js"

const settings = makeLoop().settings

/** The event hook with a runner that only counts the turn ends handed to it. */
function setup() {
  const manager = new LoopManager()
  const ended: Loop[] = []
  const ctx = {
    manager,
    controlTurns: new ControlTurns(),
    plans: new PlanRequests(),
    continuations: new ContinuationWatch(),
    settings: { current: DEFAULT_SETTINGS },
    runner: { onTurnEnded: (loop: Loop) => ended.push(loop) },
  } as unknown as RalphContext
  const hook = eventHook(ctx)
  const send = (event: RuntimeEvent) => hook({ event } as Parameters<typeof hook>[0])
  return { manager, ended, send }
}

const busy: RuntimeEvent = { type: "session.status", properties: { sessionID: "ses_a", status: { type: "busy" } } }
const statusIdle: RuntimeEvent = {
  type: "session.status",
  properties: { sessionID: "ses_a", status: { type: "idle" } },
}
const sessionIdle: RuntimeEvent = { type: "session.idle", properties: { sessionID: "ses_a" } }

describe("the end of a turn", () => {
  it.each([
    ["session.status idle, then session.idle", [statusIdle, sessionIdle]],
    ["session.idle, then session.status idle", [sessionIdle, statusIdle]],
    ["session.status idle alone", [statusIdle]],
    ["session.idle alone", [sessionIdle]],
  ])("%s: handed to the runner once", async (_, idles) => {
    const { manager, ended, send } = setup()
    const { loop } = manager.start("ses_a", "task", settings, 0)
    await send(busy)
    for (const event of idles) await send(event)
    expect(ended).toEqual([loop])
  })
})
