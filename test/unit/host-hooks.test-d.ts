// The plugin's hooks are checked against the host port's inputs (src/hooks/v1-hooks.ts): `npm run
// typecheck` compiles this file (vitest never runs it). Should a port input's hook stop being
// required, the `@ts-expect-error` below is unused and the typecheck fails.
import type { V1Hooks } from "../../src/hooks/v1-hooks.js"

declare const wired: V1Hooks

// The port's `requestParams` (chat.params) not wired.
const { "chat.params": _params, ...oneMissing } = wired
// @ts-expect-error "chat.params" carries the port's requestParams: it must be there
export const withoutAHook: V1Hooks = oneMissing

// `config` is OpenCode's, not a port input: leaving it out is fine.
const { config: _config, ...withoutConfig } = wired
export const noConfig: V1Hooks = withoutConfig
