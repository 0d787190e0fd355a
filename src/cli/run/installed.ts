// Is ralph-loop installed for the project — listed in an OpenCode config file OpenCode reads for it
// (global, or the project's up to its git root), by a spec that leads to a ralph-loop package? The
// same reading of config files as `ralph-loop doctor`.
import { globalConfigFiles, projectConfigFiles } from "../../listings/config-files.js"
import { listingsIn, readConfig } from "../../listings/plugin-listings.js"

export type Installed = { ok: true; files: string[] } | { ok: false; problem: string }

export function pluginInstalled(project: string, env: NodeJS.ProcessEnv, packageDir: string): Installed {
  const working: string[] = []
  const broken: string[] = []
  for (const config of [...globalConfigFiles(env), ...projectConfigFiles(project, env)]) {
    for (const listing of listingsIn(config, readConfig(config.file), packageDir).listings) {
      if (listing.reach.kind === "this" || listing.reach.kind === "copy") working.push(listing.file)
      else
        broken.push(
          `${listing.file} lists ${JSON.stringify(listing.spec)}, which ` +
            (listing.reach.kind === "npm"
              ? "is the npm registry's unrelated `ralph-loop`"
              : `leads to ${listing.reach.path}, which does not exist`),
        )
    }
  }
  if (working.length > 0) return { ok: true, files: working }
  const fix =
    `run \`ralph-loop install --project ${project}\` (or \`ralph-loop install --global\`), then run ` +
    `again; \`ralph-loop doctor\` checks the setup`
  if (broken.length > 0)
    return {
      ok: false,
      problem: `the ralph-loop plugin is not usable for ${project}: ${broken.join("; ")}. Fix: ${fix}`,
    }
  return {
    ok: false,
    problem: `the ralph-loop plugin is not installed for ${project} (no OpenCode config file lists it). Fix: ${fix}`,
  }
}
