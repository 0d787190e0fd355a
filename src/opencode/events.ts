// Runtime events, reduced to the few facts the loop reacts to. Called for every event OpenCode
// publishes (every streamed delta of every session), so anything not needed returns at once.
// Runtime payloads are v2-shaped and wider than the SDK's v1 `Event` union, hence `RuntimeEvent`.
export interface RuntimeEvent {
  type: string
  properties?: unknown
}

export interface EventError {
  name: string
  message: string
  statusCode?: number
  headers?: Record<string, string>
}

export type Observation =
  | { kind: "busy"; sessionID: string; retry: boolean }
  | { kind: "idle"; sessionID: string }
  | { kind: "error"; sessionID: string; error: EventError }
  | { kind: "compacted"; sessionID: string }
  | { kind: "asked"; sessionID: string; requestID: string }
  | { kind: "answered"; sessionID: string; requestID: string }
  | { kind: "session-created"; sessionID: string; parentID?: string }
  | { kind: "session-deleted"; sessionID: string }

interface Props {
  sessionID?: string
  id?: string
  requestID?: string
  permissionID?: string
  status?: { type?: string }
  info?: { id?: string; parentID?: string }
  error?: { name?: string; data?: { message?: unknown; statusCode?: unknown; responseHeaders?: unknown } }
}

/** The event types `observe` reads; every other event (most are streamed deltas) is skipped unread. */
export const OBSERVED_EVENTS: ReadonlySet<string> = new Set([
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
])

export function observe(event: RuntimeEvent): Observation | undefined {
  switch (event.type) {
    case "session.status": {
      const { sessionID, status } = props(event)
      if (!sessionID) return undefined
      // "retry" is still a turn under way (the provider is being retried).
      if (status?.type === "busy" || status?.type === "retry") return { kind: "busy", sessionID, retry: status.type === "retry" }
      // The end of a turn, as OpenCode now announces it (session.idle is deprecated). Both arrive;
      // the manager claims only the first (takeIdle wants a busy since the last claim).
      if (status?.type === "idle") return { kind: "idle", sessionID }
      return undefined
    }
    case "session.idle": {
      const { sessionID } = props(event)
      return sessionID ? { kind: "idle", sessionID } : undefined
    }
    case "session.error": {
      const { sessionID, error } = props(event)
      return sessionID ? { kind: "error", sessionID, error: eventError(error) } : undefined
    }
    case "session.compacted": {
      const { sessionID } = props(event)
      return sessionID ? { kind: "compacted", sessionID } : undefined
    }
    case "permission.asked":
    case "question.asked": {
      const { sessionID, id } = props(event)
      return sessionID && id ? { kind: "asked", sessionID, requestID: id } : undefined
    }
    case "permission.replied":
    case "question.replied":
    case "question.rejected": {
      const { sessionID, requestID, permissionID } = props(event)
      const id = requestID ?? permissionID
      return sessionID && id ? { kind: "answered", sessionID, requestID: id } : undefined
    }
    case "session.created": {
      const { sessionID, info } = props(event)
      const id = info?.id ?? sessionID
      if (!id) return undefined
      return info?.parentID ? { kind: "session-created", sessionID: id, parentID: info.parentID } : { kind: "session-created", sessionID: id }
    }
    case "session.deleted": {
      const { sessionID, info } = props(event)
      const id = info?.id ?? sessionID
      return id ? { kind: "session-deleted", sessionID: id } : undefined
    }
    default:
      return undefined
  }
}

const props = (event: RuntimeEvent): Props => (event.properties ?? {}) as Props

function eventError(error: Props["error"]): EventError {
  const data = error?.data
  const result: EventError = {
    name: typeof error?.name === "string" ? error.name : "UnknownError",
    message: typeof data?.message === "string" ? data.message : String(error?.name ?? "unknown error"),
  }
  if (typeof data?.statusCode === "number") result.statusCode = data.statusCode
  if (data?.responseHeaders && typeof data.responseHeaders === "object") result.headers = data.responseHeaders as Record<string, string>
  return result
}
