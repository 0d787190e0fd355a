// Text for a terminal: what the CLI prints comes from files (plan titles, tasks, notes, paths, git
// output) that anyone who can commit to the repository writes. Control characters other than
// newline and tab would reach the terminal as commands (ESC, CSI, OSC: move the cursor, rewrite
// the screen, set the title or the clipboard), so each is shown as its JSON escape instead:
// ESC as \u001b. In JSON output that escape means the same character, so JSON stays valid.

// C0 except tab (09) and newline (0a), DEL, and C1 (0x80–0x9f: CSI and OSC in one byte).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

export function terminalText(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
}
