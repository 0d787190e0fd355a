// Runtime events, reduced to the few facts the loop reacts to. Called for every event OpenCode
// publishes (every streamed delta of every session), so anything not needed returns at once.
// Runtime payloads are v2-shaped and wider than the SDK's v1 `Event` union, hence `RuntimeEvent`.
export interface RuntimeEvent {
  type: string
  properties?: unknown
}

export type Observation =
  | { kind: "busy"; sessionID: string }
  | { kind: "idle"; sessionID: string }
  | { kind: "session-created"; sessionID: string; parentID?: string }
  | { kind: "session-deleted"; sessionID: string }

interface Props {
  sessionID?: string
  status?: { type?: string }
  info?: { id?: string; parentID?: string }
}

export function observe(event: RuntimeEvent): Observation | undefined {
  switch (event.type) {
    case "session.status": {
      const { sessionID, status } = (event.properties ?? {}) as Props
      // "retry" is still a turn under way (the provider is being retried).
      if (sessionID && (status?.type === "busy" || status?.type === "retry")) return { kind: "busy", sessionID }
      return undefined
    }
    case "session.idle": {
      const { sessionID } = (event.properties ?? {}) as Props
      return sessionID ? { kind: "idle", sessionID } : undefined
    }
    case "session.created": {
      const { sessionID, info } = (event.properties ?? {}) as Props
      const id = info?.id ?? sessionID
      if (!id) return undefined
      return info?.parentID ? { kind: "session-created", sessionID: id, parentID: info.parentID } : { kind: "session-created", sessionID: id }
    }
    case "session.deleted": {
      const { sessionID, info } = (event.properties ?? {}) as Props
      const id = info?.id ?? sessionID
      return id ? { kind: "session-deleted", sessionID: id } : undefined
    }
    default:
      return undefined
  }
}
