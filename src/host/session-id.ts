// OpenCode's session ids (`ses_…`): letters, digits, `_` and `-`. The loop uses them as file names
// (its state file, the session folders of summaries and transcripts), so an id of any other form
// is refused before it gets there.
import { z } from "zod"

export const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/

export const sessionIDSchema = z.string().regex(SESSION_ID, "is not a session id")

/** A file name for any id: each character a session id may not contain becomes `_`. */
export const fileSafeID = (id: string): string => id.replace(/[^A-Za-z0-9_-]/g, "_")
