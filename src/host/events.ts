// Runtime events, reduced to the few facts the loop reacts to. Called for every event OpenCode
// publishes (every streamed delta of every session), so anything not needed returns at once.
// The hook is typed with the SDK's v1 `Event`, but what arrives is v2-shaped (docs/opencode-notes.md):
// the payloads are read as the v2 types say, each field checked before use.
import type { Event } from "@opencode-ai/sdk/v2"
import { parseError, type OpencodeError } from "./error.js"

/** An event as the hook receives it: only its type is certain. */
export interface RuntimeEvent {
  type: string
  properties?: unknown
}

export type IdleVia = "status" | "idle"

export type Observation =
  | { kind: "busy"; sessionID: string; retry: boolean }
  /** `via`: OpenCode announces a turn's end twice, by session.status idle and by session.idle. */
  | { kind: "idle"; sessionID: string; via: IdleVia }
  | { kind: "error"; sessionID: string; error: OpencodeError }
  | { kind: "compacted"; sessionID: string }
  | { kind: "asked"; sessionID: string; requestID: string }
  | { kind: "answered"; sessionID: string; requestID: string }
  | { kind: "session-created"; sessionID: string; parentID?: string }
  | { kind: "session-deleted"; sessionID: string }

const OBSERVED = [
  "session.status",
  "session.idle",
  "session.error",
  "session.compacted",
  "permission.asked",
  "question.asked",
  "permission.replied",
  "question.replied",
  "question.rejected",
  "session.created",
  "session.deleted",
] as const satisfies ReadonlyArray<Event["type"]>

type ObservedType = (typeof OBSERVED)[number]

/** The event types `observe` reads; every other event (most are streamed deltas) is skipped unread. */
export const OBSERVED_EVENTS: ReadonlySet<string> = new Set(OBSERVED)

/** What the SDK says an event of `T` carries — any field of it may still be missing. */
type Payload<T extends ObservedType> = Partial<Extract<Event, { type: T }>["properties"]>

export function observe(event: RuntimeEvent): Observation | undefined {
  switch (event.type) {
    case "session.status": {
      const { sessionID, status } = payload<"session.status">(event)
      if (!sessionID) return undefined
      // "retry" is still a turn under way (the provider is being retried).
      if (status?.type === "busy" || status?.type === "retry")
        return { kind: "busy", sessionID, retry: status.type === "retry" }
      // The end of a turn, as OpenCode now announces it (session.idle is deprecated). Both arrive;
      // the manager claims only the first (takeIdle wants a busy since the last claim).
      if (status?.type === "idle") return { kind: "idle", sessionID, via: "status" }
      return undefined
    }
    case "session.idle": {
      const { sessionID } = payload<"session.idle">(event)
      return sessionID ? { kind: "idle", sessionID, via: "idle" } : undefined
    }
    case "session.error": {
      const { sessionID, error } = payload<"session.error">(event)
      return sessionID ? { kind: "error", sessionID, error: parseError(error) } : undefined
    }
    case "session.compacted": {
      const { sessionID } = payload<"session.compacted">(event)
      return sessionID ? { kind: "compacted", sessionID } : undefined
    }
    case "permission.asked":
    case "question.asked": {
      const { sessionID, id } = payload<"permission.asked" | "question.asked">(event)
      return sessionID && id ? { kind: "asked", sessionID, requestID: id } : undefined
    }
    case "permission.replied":
    case "question.replied":
    case "question.rejected": {
      const { sessionID, requestID } = payload<"permission.replied" | "question.replied" | "question.rejected">(event)
      return sessionID && requestID ? { kind: "answered", sessionID, requestID } : undefined
    }
    case "session.created": {
      const { sessionID, info } = payload<"session.created">(event)
      const id = info?.id ?? sessionID
      if (!id) return undefined
      return info?.parentID
        ? { kind: "session-created", sessionID: id, parentID: info.parentID }
        : { kind: "session-created", sessionID: id }
    }
    case "session.deleted": {
      const { sessionID, info } = payload<"session.deleted">(event)
      const id = info?.id ?? sessionID
      return id ? { kind: "session-deleted", sessionID: id } : undefined
    }
    default:
      return undefined
  }
}

/** The event's properties as the SDK's v2 type of `T` has them (the caller has matched the type). */
function payload<T extends ObservedType>(event: RuntimeEvent): Payload<T> {
  const { properties } = event
  return typeof properties === "object" && properties !== null ? (properties as Payload<T>) : {}
}
