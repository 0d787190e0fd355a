// The loop's own files in the project: all of them live under `.opencode/` (the state folder, the
// settings file, the session folders of the default summaryPath), plus the summaryPath a loop was
// given. They are never "work": left out of progress and of the files a loop changed, and guarded
// from the agent's tools while a loop runs. The plan file is the plugin's only write outside them:
// src/changes/loop-changes.ts leaves it out of the files a loop changed while that write is its only change.
export const OPENCODE_DIR = ".opencode"

/** The loops' state files and journal. */
export const STATE_DIR = `${OPENCODE_DIR}/ralph-loop`

/** The project memory (src/memory/). */
export const MEMORY_FILE = `${STATE_DIR}/memory.md`

/** The loop's own folders, relative to the project, each with one trailing slash. */
export const ownFolders = (loop: { settings: { summaryPath: string } }): string[] => [
  `${OPENCODE_DIR}/`,
  asFolder(loop.settings.summaryPath),
]

const asFolder = (path: string): string => path.replace(/^\.\//, "").replace(/\/?$/, "/")
