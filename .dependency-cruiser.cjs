// dependency-cruiser's rules for src/ (`npm run depcruise`). Three things are checked:
// no import cycle between modules, the layers below, and no src file importing the tests' code.

// The top-level names of src/ (its folders, and the few files at its root without ".ts"), lowest
// first. Each may import only the names before it in this list, and itself. So no import can point
// later in the list, and a cycle between folders cannot exist. A name missing here fails the check:
// a new folder must be given its place. Edit this list when folders move; keep it ordered so that
// what a folder builds on comes before it (the pure core and the adapters early, the front doors
// and the wiring last).
const LAYERS = [
  "project",
  "files",
  "git",
  "host",
  "effects",
  "config",
  "listings",
  "owner",
  "checks",
  "evidence",
  "plan",
  "loop",
  "checkpoints",
  "changes",
  "replay",
  "store",
  "review",
  "memory",
  "notify",
  "continuations",
  "worktrees",
  "status",
  "clean",
  "engine",
  "acts",
  "opencode",
  "commands",
  "control",
  "tui",
  "hooks",
  "cli",
  "instance",
  "plugin",
  "index",
]

/** A path pattern for one top-level name of src/: the folder, or the file at the root. */
const top = (names) => `^src/(${names.join("|")})(/|\\.ts$)`

const layerRules = LAYERS.map((name, i) => ({
  name: `layer-${name}`,
  comment: `src/${name} may import only what comes before it in LAYERS (.dependency-cruiser.cjs), and itself.`,
  severity: "error",
  from: { path: top([name]) },
  to: { path: "^src/", pathNot: top(LAYERS.slice(0, i + 1)) },
}))

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "A module reaches itself through its runtime imports. (Type-only imports between the files of one folder may " +
        "go both ways: a record and its rules often name each other's types. Between folders the layers forbid it.) " +
        "The loop's own jobs are the one exception: they are mutually recursive by nature (a turn's end may go on from " +
        "the session, which may end a turn: engine/jobs/turn-ended, go-on, recover).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/engine/jobs/" },
      to: { circular: true, viaOnly: { dependencyTypesNot: ["type-only"] } },
    },
    ...layerRules,
    {
      name: "layer-unlisted",
      comment: "A top-level name of src/ that is not in LAYERS (.dependency-cruiser.cjs): give it its place there.",
      severity: "error",
      from: { path: "^src/", pathNot: top(LAYERS) },
      to: {},
    },
    {
      name: "front-doors-through-acts",
      comment:
        "The front doors (chat commands, CLI, control channel, TUI) ask a loop's acts of src/acts/ (pause, resume, " +
        "cancel, hint, rollback, status, remember, forget), never the modules those acts wrap: the loop's manager " +
        "and its resume rule, the runner, the rollback job, the memory file and store, the continuations' watch.",
      severity: "error",
      from: { path: top(["commands", "cli", "control", "tui"]) },
      to: {
        path:
          "^src/(loop/(manager|resume)|engine/runner|checkpoints/rollback-(job|rule)|" +
          "memory/(memory-file|memory-store|staging)|continuations/watch)\\.ts$",
      },
    },
    {
      name: "no-test-code-in-src",
      comment: "src/ is what ships: it never imports the tests, the benchmarks or the demo.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|demo)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // type-only imports are dependencies too: a folder that needs another's types depends on it
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js"],
    },
  },
}
