// What the plugin learned about the model turn that just ended: the facts decisions are made on.
export interface TurnError {
  name: string
  message: string
  statusCode?: number | undefined
  retryable?: boolean | undefined
  headers?: Record<string, string> | undefined
}

export interface Turn {
  /** The last assistant message of the turn; absent when the turn produced none. */
  lastAssistantID?: string
  /** The assistant's own text of the turn (no synthetic or ignored parts, no summaries). */
  texts: string[]
  error?: TurnError
  /** Why the model stopped ("stop", "length", "tool-calls", …) as OpenCode recorded it. */
  finish?: string | undefined
  /** The last assistant message was never completed (the turn was cut off). */
  interrupted?: boolean
  /** The turn ended in a compaction (OpenCode summarized the session). */
  compacted?: boolean
  /** The model and agent the turn ran with, for summarize and the next prompt. */
  model?: { providerID: string; modelID: string }
  agent?: string
}
