// What OpenCode needs to run a worktree's own instance as it runs the project's: the plugin and
// the model come from the project's OpenCode config, and the loop's settings from its settings
// file. A worktree holds only committed files, so a config the user never committed is copied into
// the worktree's `.opencode/` (which no loop commit takes). And OpenCode installs its plugin
// package into every config folder at an instance's start (seconds, or a failure offline): the
// worktree's `.opencode/` gets the project's installed one instead. The config the plugin writes
// there turns off what a worktree loop's instance need not pay for (src/worktrees/opencode-overrides.ts);
// a worktree with a committed `.opencode/` config of its own is left as it is.
import { existsSync } from "node:fs"
import { copyFile, mkdir, readFile, symlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { OPENCODE_FILES, SETTINGS_FILES } from "../config/files.js"
import { OPENCODE_DIR } from "../project/own-files.js"
import { OVERRIDES_FILE, withWorktreeOverrides } from "./opencode-overrides.js"

const present = (dir: string, names: readonly string[]): string | undefined =>
  names.find((name) => existsSync(join(dir, name)))

export async function prepareWorktreeConfig(main: string, worktree: string): Promise<void> {
  const from = join(main, OPENCODE_DIR)
  const to = join(worktree, OPENCODE_DIR)
  await mkdir(to, { recursive: true })
  // The project's OpenCode config, where the worktree has none of its own at either place.
  const own = present(to, OPENCODE_FILES)
  let written: string | undefined
  if (!present(worktree, OPENCODE_FILES) && !own) {
    const config = present(from, OPENCODE_FILES) ?? present(main, OPENCODE_FILES)
    if (config)
      await copyFile(present(from, OPENCODE_FILES) ? join(from, config) : join(main, config), join(to, config))
    written = config
  }
  // Only into a file of the plugin's own: one beside a committed `.opencode/` config would hide that
  // config's "ralph-loop" block from the plugin, which reads the first of opencode.jsonc/.json there.
  if (!own) {
    const file = join(to, written ?? OVERRIDES_FILE)
    const text = withWorktreeOverrides(written ? await readFile(file, "utf8") : undefined)
    if (text !== undefined) await writeFile(file, text)
  }
  const settings = present(from, SETTINGS_FILES)
  if (settings && !present(to, SETTINGS_FILES)) await copyFile(join(from, settings), join(to, settings))
  // OpenCode skips its install where node_modules exists and the lock lists package.json's dependencies.
  if (existsSync(join(from, "node_modules")) && !existsSync(join(to, "node_modules"))) {
    for (const file of ["package.json", "package-lock.json"])
      if (existsSync(join(from, file))) await copyFile(join(from, file), join(to, file))
    await symlink(join(from, "node_modules"), join(to, "node_modules"), "dir")
  }
}
