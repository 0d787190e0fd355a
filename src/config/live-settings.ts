// The settings in force for one plugin instance, re-read when a loop starts so edits to the file
// apply without restarting OpenCode, and by the loop's jobs (`fresh`) whenever a ralph-loop settings
// file changed since the last read (its size and mtime): a claim of done sees the checks the file
// holds now. `current` never looks at the files: it is read on the event path, on every event.
// Each config problem is logged and toasted once.
import { statSync } from "node:fs"
import { join } from "node:path"
import type { Host } from "../host/port.js"
import { OPENCODE_DIR } from "../project/own-files.js"
import { SETTINGS_FILES } from "./files.js"
import { formatProblem, loadSettings, type SettingsSources } from "./load.js"
import type { SettingKey, Settings } from "./schema.js"

export class LiveSettings {
  private settings: Settings
  private explicitKeys = new Set<SettingKey>()
  private readonly reported = new Set<string>()
  /** Problems found before anyone could see a toast (at load, the TUI may not listen yet). */
  private unseen: string[] = []

  /** The settings files' sizes and mtimes at the last read. */
  private stamp: string

  constructor(
    private readonly sources: SettingsSources,
    private readonly api: Host,
  ) {
    this.stamp = this.filesStamp()
    this.settings = this.load(false)
  }

  get current(): Settings {
    return this.settings
  }

  /** The settings, read again first if a settings file changed since the last read (a few stat calls). */
  fresh(): Settings {
    if (this.filesStamp() !== this.stamp) return this.reload()
    return this.settings
  }

  /** The ralph-loop settings files (global and the project's), each as size and mtime, or "-" when absent. */
  private filesStamp(): string {
    const dirs = [
      ...(this.sources.globalDir ? [this.sources.globalDir] : []),
      join(this.sources.directory, OPENCODE_DIR),
    ]
    return dirs
      .flatMap((dir) => SETTINGS_FILES.map((name) => join(dir, name)))
      .map((file) => {
        try {
          const stat = statSync(file, { throwIfNoEntry: false })
          return stat ? `${stat.size}:${stat.mtimeMs}` : "-"
        } catch {
          return "?" // unreadable: the loader says why when it reads
        }
      })
      .join(" ")
  }

  /** The keys a config layer set (the others are defaults). */
  get explicit(): ReadonlySet<SettingKey> {
    return this.explicitKeys
  }

  reload(): Settings {
    this.stamp = this.filesStamp()
    this.settings = this.load(true)
    return this.settings
  }

  /** Shows problems found at load time; called when the user first does something. */
  showUnseen(): void {
    if (this.unseen.length === 0) return
    this.toast(this.unseen)
    this.unseen = []
  }

  private load(visible: boolean): Settings {
    const { settings, explicit, problems } = loadSettings(this.sources)
    this.explicitKeys = explicit
    const fresh = problems.map(formatProblem).filter((text) => !this.reported.has(text))
    for (const text of fresh) {
      this.reported.add(text)
      this.api.log("warn", `config: ${text}`)
    }
    if (fresh.length > 0) {
      if (visible) this.toast(fresh)
      else this.unseen.push(...fresh)
    }
    return settings
  }

  private toast(problems: string[]): void {
    this.api.toast("error", "Ralph · config problem", problems.join("\n"), 20_000)
  }
}
