// The settings in force for one plugin instance, re-read when a loop starts so edits to the file
// apply without restarting OpenCode. Each config problem is logged and toasted once.
import type { Host } from "../host/port.js"
import { formatProblem, loadSettings, type SettingsSources } from "./load.js"
import type { SettingKey, Settings } from "./schema.js"

export class LiveSettings {
  private settings: Settings
  private explicitKeys = new Set<SettingKey>()
  private readonly reported = new Set<string>()
  /** Problems found before anyone could see a toast (at load, the TUI may not listen yet). */
  private unseen: string[] = []

  constructor(
    private readonly sources: SettingsSources,
    private readonly api: Host,
  ) {
    this.settings = this.load(false)
  }

  get current(): Settings {
    return this.settings
  }

  /** The keys a config layer set (the others are defaults). */
  get explicit(): ReadonlySet<SettingKey> {
    return this.explicitKeys
  }

  reload(): Settings {
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
