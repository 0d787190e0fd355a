// The commands of a plan over many machines, word by word: what many-machines.e2e.test.ts runs, and
// what docs/headless.md's GitHub Actions workflow and plain-shell flow spell
// (test/unit/headless-docs.test.ts holds the doc to these, so the two cannot drift apart).

/** `ralph-loop` arguments; `plan` and `story` are the words as written (a path, or `"$PLAN"`). */
export const planCommands = {
  /** In each story job, before the run: the plugin listed for the checkout on that machine. */
  install: ["install", "--project", "."],
  /** One id a line; with `--json`, the line a CI matrix takes. */
  ready: (plan: string) => ["plan", "ready", plan],
  story: (plan: string, story: string) => ["run", "--prd", plan, "--story", story],
  merge: (plan: string) => ["plan", "merge", plan],
}

/**
 * `git` arguments: a story job's push of the branch its run made. `--force`: a branch left from an
 * earlier round (one that conflicted) is replaced by the newer run's. No hook and no credential
 * helper of the checkout the agent worked in runs with the token; the docs' workflow gives the
 * remote as a URL with the token in place of `origin` (its checkout keeps no credentials).
 */
export const STORY_BRANCH_PUSH = [
  ...["-c", "credential.helper=", "-c", "core.hooksPath=/dev/null"],
  ...["push", "--force", "origin", "refs/heads/ralph/story-*:refs/heads/ralph/story-*"],
]
