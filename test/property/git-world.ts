// The git-layer property test's world: a real temporary repository, played step by step through the
// plugin's git layer (checkpoints, rollback, autoCommit, worktree loops, clean), beside a model of
// what must be there — every file with its content and whose it is (the user's or the loop's),
// HEAD and its files, the index, the stash, the refs. After every step the repository is read back
// and compared with the model; a step of the plugin's is also checked against what the docs promise
// (docs/checkpoints.md, docs/worktrees.md) at the moment it runs.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { commitLoopWork } from "../../src/changes/auto-commit.js"
import {
  listCheckpoints,
  makeCheckpoint,
  removeCheckpoints,
  restoreCheckpoint,
  saveBeforeRollback,
} from "../../src/checkpoints/checkpoint-git.js"
import { snapshotWorkTree } from "../../src/changes/work-tree.js"
import {
  commitWork,
  createWorktree,
  fastForward,
  mergeBranch,
  mergeFacts,
  removeWorktree,
  unmergedCommits,
  worktreeDirty,
} from "../../src/worktrees/worktree-git.js"
import { rollbackTarget } from "../../src/checkpoints/checkpoints.js"
import { mergeAction, type MergeFacts } from "../../src/worktrees/merge-plan.js"
import type { WorktreeState } from "../../src/worktrees/worktree-state.js"
import {
  blob,
  blobsOf,
  differences,
  indexBlobs,
  readDisk,
  refs,
  revParse,
  sh,
  treeBlobs,
  type Blobs,
  type Files,
} from "./git-oracle.js"
import type { AgentEdit, RunConfig, Step, UserEdit, WorktreeEdit } from "./git-steps.js"

/** The user's files (relative to the project): odd names on purpose — spaces, non-ASCII, `*`, `:`, a leading `-`, pathspec magic. */
const USER_FILES = [
  "notes.txt",
  "read me.md",
  "dîr/ünïcödé.txt",
  "-dash.txt",
  "star*.txt",
  "colon:name.txt",
  ":(exclude)magic.txt",
  "sp ace/inner file.txt",
  "日本語.txt",
  "user.log",
  "ignored dir/keep.txt",
]
/** The files the agent works on; `build.log` is ignored. */
const LOOP_FILES = [
  "src/app.ts",
  "src/lib ü.ts",
  "-loop.ts",
  "loop*star.ts",
  "loop:colon.ts",
  "new dir/файл.ts",
  "build.log",
  "loop two words.txt",
  "[brackets].ts",
]
/** With the project in a folder of the repository: the user's files outside it. */
const OUTSIDE_FILES = ["top.txt", "top new.txt"]
/** Patterns the user adds to `.gitignore` or takes out. */
const IGNORE_PATTERNS = [
  "*.log",
  "ignored dir/",
  "-dash.txt",
  "日本語.txt",
  "loop two words.txt",
  "new dir/",
  "colon:name.txt",
]
const LOOP_IDS = ["ses_a", "ses_ab", "ses_b"]
/** The loop's own folders (ownFolders with the default summaryPath). */
const OWN_FOLDERS = [".opencode/", ".opencode/sessions/"]
const BULK_DIR = "bulk ü/"
const BULK_FILES = 2_500

/** Whether `.gitignore` (this subset of its syntax: `*.ext`, `dir/`, a name) ignores `path`. */
export function ignoredBy(gitignore: string | undefined, path: string): boolean {
  const segments = path.split("/")
  const name = segments.at(-1) ?? ""
  const folders = segments.slice(0, -1)
  for (const line of (gitignore ?? "").split("\n")) {
    const pattern = line.trim()
    if (!pattern) continue
    if (pattern.endsWith("/")) {
      if (folders.includes(pattern.slice(0, -1))) return true
    } else if (pattern.startsWith("*.")) {
      if (name.endsWith(pattern.slice(1))) return true
    } else if (segments.includes(pattern)) return true
  }
  return false
}

interface LoopRun {
  id: string
  startedAt: number
  startHead: string
  startTree: string
  /** The project's files git sees (the snapshot) when the loop began. */
  start: Files
  iteration: number
  /** The user's files changed since the loop began by the user, a rollback, a merge, or the agent (a shared file). */
  touched: Set<string>
  /** Files written since the loop began, by anyone: the others' change time is older than the loop. */
  written: Set<string>
}

interface Checkpoint {
  commit: string
  iteration: number | undefined
  files: Files
}

interface Worktree {
  name: string
  path: string
  branch: string
  base: string
  baseFiles: Files
  tip: string
  tipFiles: Files
  files: Files
  index: Files
  /** Commits reachable from the branch. */
  ancestors: Set<string>
  state: "live" | "kept"
  /** Paths the user's uncommitted changes set when the worktree was made `--with-changes`. */
  carried: Set<string>
  /** Paths the agent changed in the worktree. */
  edited: Set<string>
}

class Broken extends Error {}

const sorted = (paths: Iterable<string>): string[] => [...new Set(paths)].sort()
const pickFrom = <T>(list: readonly T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined)
const show = (path: string): string => JSON.stringify(path)
const sameFiles = (a: Files, b: Files): boolean =>
  a.size === b.size && [...a].every(([path, content]) => b.get(path) === content)

export class World {
  readonly trace: string[] = []
  files: Files = new Map()
  index: Files = new Map()
  headFiles: Files = new Map()
  head = ""
  stash = ""
  readonly user = new Set<string>()
  readonly loopOwned = new Set<string>()
  loop: LoopRun | undefined
  readonly checkpoints = new Map<string, Checkpoint>()
  readonly worktrees = new Map<string, Worktree>()
  /** Commits reachable from the user's branch. */
  readonly mainAncestors = new Set<string>()
  private counter = 0
  private worktreeCount = 0

  private constructor(
    readonly root: string,
    readonly prefix: string,
    readonly config: RunConfig,
    readonly stats: Map<string, number>,
  ) {}

  get dir(): string {
    return join(this.root, this.prefix)
  }

  /** A repository with a commit, a stash, and the user's uncommitted work (staged, unstaged, untracked, ignored). */
  static create(config: RunConfig, stats: Map<string, number>): World {
    const root = mkdtempSync(join(tmpdir(), "git-layer-"))
    const world = new World(root, config.sub ? "prój x/" : "", config, stats)
    try {
      world.setUp()
    } catch (error) {
      world.dispose()
      throw error
    }
    return world
  }

  dispose(): void {
    rmSync(this.root, { recursive: true, force: true, maxRetries: 5 })
  }

  private setUp(): void {
    const p = this.prefix
    sh(this.root, ["init", "-q", "-b", "main"])
    sh(this.root, ["config", "user.name", "The User"])
    sh(this.root, ["config", "user.email", "user@example.invalid"])
    this.write(".gitignore", "*.log\nignored dir/\n", "user")
    for (const path of ["notes.txt", "read me.md", "dîr/ünïcödé.txt"])
      this.write(p + path, this.content("user"), "user")
    for (const path of ["src/app.ts", "src/lib ü.ts"]) this.write(p + path, this.content("loop"), "loop")
    if (p) this.write("top.txt", this.content("user"), "user")
    for (const path of this.files.keys()) this.stage(path)
    this.commitIndex("start")
    // A stash of the user's, which nothing may touch.
    const notes = `${p}notes.txt`
    this.write(notes, "stashed\n", "user")
    sh(this.root, ["stash", "push", "-q", "-m", "the user's stash"])
    this.files.set(notes, this.headFiles.get(notes) as string)
    this.stash = revParse(this.root, "refs/stash")
    if (!this.config.dirty) {
      // Only a file git ignores is there.
      this.write(`${p}user.log`, this.content("user"), "user")
      return this.check()
    }
    // The user's uncommitted work from before any loop.
    for (const path of ["-dash.txt", "user.log", "日本語.txt", "ignored dir/keep.txt"])
      this.write(p + path, this.content("user"), "user")
    if (p) this.write("top new.txt", this.content("user"), "user")
    this.write(`${p}read me.md`, this.content("user"), "user")
    this.stage(`${p}read me.md`)
    this.write(`${p}dîr/ünïcödé.txt`, this.content("user"), "user")
    this.check()
  }

  // ---- the model's view ------------------------------------------------------------------------

  private content(who: string): string {
    this.counter += 1
    return `${who} ${this.counter}${this.counter % 4 === 0 ? "" : "\n"}`
  }

  private count(key: string): void {
    this.stats.set(key, (this.stats.get(key) ?? 0) + 1)
  }

  private ignored(path: string, files: Files = this.files): boolean {
    return ignoredBy(files.get(".gitignore"), path)
  }

  private inProject(path: string): boolean {
    return path.startsWith(this.prefix) && !path.startsWith(`${this.prefix}.opencode/`)
  }

  /** The project's files git sees (tracked, or untracked and not ignored): what a checkpoint holds. */
  snapshot(): Files {
    const seen: Files = new Map()
    for (const [path, content] of this.files)
      if (this.inProject(path) && (this.index.has(path) || !this.ignored(path))) seen.set(path, content)
    return seen
  }

  /** Whether `git status` lists the path (staged, changed, deleted, or untracked and not ignored). */
  private listed(path: string): boolean {
    const staged = this.index.get(path)
    if (staged !== this.headFiles.get(path)) return true
    if (this.index.has(path)) return this.files.get(path) !== staged
    return this.files.has(path) && !this.ignored(path)
  }

  private projectBlobs(rev: string): Blobs {
    return new Map([...treeBlobs(this.root, rev)].filter(([path]) => this.inProject(path)))
  }

  private fail(lines: string | string[]): never {
    throw new Broken(Array.isArray(lines) ? lines.join("\n") : lines)
  }

  private expectSame(what: string, expected: Map<string, string>, actual: Map<string, string>): void {
    const lines = differences(what, expected, actual, (v) => (v.length === 40 ? v.slice(0, 8) : JSON.stringify(v)))
    if (lines.length) this.fail(lines)
  }

  // ---- the user's and the agent's hands --------------------------------------------------------

  private write(path: string, content: string, owner: "user" | "loop"): void {
    mkdirSync(dirname(join(this.root, path)), { recursive: true })
    writeFileSync(join(this.root, path), content)
    this.files.set(path, content)
    this.loop?.written.add(path)
    ;(owner === "user" ? this.user : this.loopOwned).add(path)
  }

  private remove(path: string): void {
    unlinkSync(join(this.root, path))
    this.files.delete(path)
  }

  /**
   * `git add -A -f -- path` (a deletion is staged too): the user means the path, even where a .gitignore a rollback
   * brought back covers it now (plain `git add` refuses then; npm run fuzz found it, seed 420611731).
   */
  private stage(path: string): void {
    sh(this.root, ["add", "-A", "-f", "--", path])
    const content = this.files.get(path)
    if (content === undefined) this.index.delete(path)
    else this.index.set(path, content)
  }

  private commitIndex(message: string): void {
    sh(this.root, ["commit", "-q", "--no-verify", "-m", message])
    this.head = revParse(this.root, "HEAD")
    this.headFiles = new Map(this.index)
    this.mainAncestors.add(this.head)
    this.expectSame("HEAD's file", blobsOf(this.headFiles), treeBlobs(this.root, "HEAD"))
  }

  /** A new name beside the file's (same folder: `git mv` wants it to exist). */
  private renamed(path: string): string {
    const slash = path.lastIndexOf("/") + 1
    this.counter += 1
    return `${path.slice(0, slash)}moved${this.counter} ${path.slice(slash)}`
  }

  private rename(from: string, to: string, withGit: boolean): void {
    if (withGit) {
      sh(this.root, ["mv", "--", from, to])
      this.index.set(to, this.index.get(from) as string)
      this.index.delete(from)
    } else renameSync(join(this.root, from), join(this.root, to))
    this.loop?.written.add(to)
    this.files.set(to, this.files.get(from) as string)
    this.files.delete(from)
  }

  /** Files of the owner (not the thousands of bulk ones), with the pool's names whether they exist or not. */
  private candidates(owner: "user" | "loop"): string[] {
    const pool =
      owner === "user"
        ? [...USER_FILES.map((f) => this.prefix + f), ...(this.prefix ? OUTSIDE_FILES : []), ...this.user]
        : [...LOOP_FILES.map((f) => this.prefix + f), ...this.loopOwned]
    return sorted(pool).filter((path) => path !== ".gitignore" && !path.startsWith(this.prefix + BULK_DIR))
  }

  private existing(owner: "user" | "loop"): string[] {
    return this.candidates(owner).filter((path) => this.files.has(path))
  }

  private stageable(owner: "user" | "loop"): string[] {
    return this.candidates(owner).filter(
      (path) =>
        (this.files.has(path) || this.index.has(path)) &&
        (this.index.has(path) || !this.ignored(path)) &&
        this.listed(path),
    )
  }

  private userEdit(edit: UserEdit): void {
    const before = { seen: this.snapshot(), files: new Map(this.files) }
    this.userHands(edit)
    if (!this.loop) return
    // What the user changed: files they wrote (ignored ones too), and what git sees differently (.gitignore).
    const after = { seen: this.snapshot(), files: this.files }
    for (const what of ["seen", "files"] as const)
      for (const path of new Set([...before[what].keys(), ...after[what].keys()]))
        if (before[what].get(path) !== after[what].get(path)) this.loop.touched.add(path)
  }

  private userHands(edit: UserEdit): void {
    switch (edit.op) {
      case "write": {
        const path = pickFrom(this.candidates("user"), edit.pick)
        if (path === undefined) return this.skip("user writes: nothing to write")
        this.write(path, this.content("user"), "user")
        return this.note(`user writes ${show(path)}`)
      }
      case "delete": {
        const path = pickFrom(this.existing("user"), edit.pick)
        if (path === undefined) return this.skip("user deletes: no file")
        this.remove(path)
        return this.note(`user deletes ${show(path)}`)
      }
      case "rename": {
        const path = pickFrom(this.existing("user"), edit.pick)
        if (path === undefined) return this.skip("user renames: no file")
        const to = this.renamed(path)
        const withGit = edit.git && this.index.has(path)
        this.rename(path, to, withGit)
        this.user.add(to)
        return this.note(`user renames ${show(path)} → ${show(to)}${withGit ? " (git mv)" : ""}`)
      }
      case "stage": {
        const path = pickFrom(this.stageable("user"), edit.pick)
        if (path === undefined) return this.skip("user stages: nothing to stage")
        this.stage(path)
        return this.note(`user stages ${show(path)}`)
      }
      case "restore": {
        const path = pickFrom(
          this.candidates("user").filter((p) => this.index.has(p) && this.files.get(p) !== this.index.get(p)),
          edit.pick,
        )
        if (path === undefined) return this.skip("user restores: nothing changed")
        sh(this.root, ["checkout", "-q", "--", path])
        this.files.set(path, this.index.get(path) as string)
        this.loop?.written.add(path)
        return this.note(`user restores ${show(path)} from the index`)
      }
      case "commit": {
        const paths = sorted(
          edit.picks.map((n) => pickFrom(this.stageable("user"), n)).filter((p): p is string => p !== undefined),
        )
        for (const path of paths) if (this.listed(path)) this.stage(path)
        if (sameFiles(this.index, this.headFiles)) return this.skip("user commits: nothing staged")
        this.commitIndex("the user's own commit")
        return this.note(
          `user commits ${paths.map(show).join(", ") || "what was staged"} (HEAD ${this.head.slice(0, 8)})`,
        )
      }
      case "ignore":
        return this.toggleIgnore(edit.pick, "user")
      case "bulk": {
        if (!this.config.bulk) return this.skip("user makes many files: not in this run")
        const folder = this.prefix + BULK_DIR
        if (existsSync(join(this.root, folder))) {
          rmSync(join(this.root, folder), { recursive: true })
          for (const path of [...this.files.keys()]) if (path.startsWith(folder)) this.files.delete(path)
          return this.note(`user removes the ${BULK_FILES} files of ${show(folder)}`)
        }
        this.count("bulk files made")
        for (let i = 0; i < BULK_FILES; i += 1) this.write(`${folder}f${i}.txt`, `bulk ${i}\n`, "user")
        return this.note(`user makes ${BULK_FILES} untracked files in ${show(folder)}`)
      }
    }
  }

  /** A pattern added to `.gitignore` (the user's file), or taken out. */
  private toggleIgnore(pick: number, who: "user" | "loop"): void {
    const pattern = IGNORE_PATTERNS[pick % IGNORE_PATTERNS.length] as string
    const lines = (this.files.get(".gitignore") ?? "").split("\n").filter(Boolean)
    const had = lines.includes(pattern)
    this.write(".gitignore", `${(had ? lines.filter((l) => l !== pattern) : [...lines, pattern]).join("\n")}\n`, "user")
    this.note(
      `${who === "user" ? "user" : "  agent"} ${had ? "takes" : "adds"} ${show(pattern)} ${had ? "out of" : "to"} .gitignore`,
    )
  }

  private agentEdit(edit: AgentEdit): void {
    switch (edit.op) {
      case "write": {
        const path = pickFrom(this.candidates("loop"), edit.pick) as string
        this.write(path, this.content("loop"), "loop")
        return this.note(`  agent writes ${show(path)}`)
      }
      case "delete": {
        const path = pickFrom(this.existing("loop"), edit.pick)
        if (path === undefined) return
        this.remove(path)
        return this.note(`  agent deletes ${show(path)}`)
      }
      case "rename": {
        const path = pickFrom(this.existing("loop"), edit.pick)
        if (path === undefined) return
        const to = this.renamed(path)
        const withGit = edit.git && this.index.has(path)
        this.rename(path, to, withGit)
        this.loopOwned.add(to)
        return this.note(`  agent renames ${show(path)} → ${show(to)}${withGit ? " (git mv)" : ""}`)
      }
      case "stage": {
        const path = pickFrom(this.stageable("loop"), edit.pick)
        if (path === undefined) return
        this.stage(path)
        return this.note(`  agent stages ${show(path)}`)
      }
      case "ignore": {
        // A file of the user's the agent changes is a shared one: its commit is the loop's work.
        this.toggleIgnore(edit.pick, "loop")
        this.loop?.touched.add(".gitignore")
        return
      }
      case "revert": {
        const path = pickFrom(
          this.candidates("loop").filter((p) => this.files.get(p) !== this.headFiles.get(p)),
          edit.pick,
        )
        if (path === undefined) return
        const committed = this.headFiles.get(path)
        if (committed === undefined) this.remove(path)
        else this.write(path, committed, "loop")
        return this.note(`  agent reverts ${show(path)} to HEAD`)
      }
    }
  }

  /** The plugin's own state file of a loop (under `.opencode/`, which nothing of the git layer may touch). */
  private writeOwnState(id: string, iteration: number): void {
    const path = `${this.prefix}.opencode/ralph-loop/loops/${id}.json`
    mkdirSync(dirname(join(this.root, path)), { recursive: true })
    writeFileSync(join(this.root, path), `{"iteration":${iteration}}\n`)
    this.files.set(path, `{"iteration":${iteration}}\n`)
  }

  private note(line: string): void {
    this.trace.push(line)
  }

  /** A step that does not apply now: said in the trace, counted. */
  private skip(why: string): undefined {
    this.note(`(${why})`)
    this.count(`skipped: ${why}`)
    return undefined
  }

  // ---- the steps -------------------------------------------------------------------------------

  async play(step: Step): Promise<void> {
    switch (step.kind) {
      case "start":
        await this.start(LOOP_IDS[step.loop % LOOP_IDS.length] as string)
        break
      case "iterate":
        await this.iterate(step.edits, step.again)
        break
      case "user":
        this.userEdit(step.edit)
        break
      case "rollback":
        await this.rollback(step.loop, step.to)
        break
      case "auto-commit":
        await this.autoCommit()
        break
      case "end":
        if (this.loop) this.note(`loop ${this.loop.id} ends`)
        this.loop = undefined
        break
      case "clean-checkpoints":
        await this.cleanCheckpoints(step.loop)
        break
      case "worktree":
        await this.makeWorktree(step.withChanges)
        break
      case "worktree-edit":
        this.worktreeEdits(step.worktree, step.edits)
        break
      case "worktree-finish":
        await this.finishWorktree(step.worktree, step.strategy)
        break
      case "worktree-loop": {
        const made = await this.makeWorktree(step.withChanges)
        if (made === undefined) break
        this.worktreeEdits(made, step.edits)
        await this.finishWorktree(made, step.strategy)
        break
      }
      case "clean-worktrees":
        await this.cleanWorktrees(step.force)
        break
    }
    this.check()
  }

  private async start(id: string): Promise<void> {
    if (this.loop) this.note(`loop ${this.loop.id} ends`)
    const startedAt = Date.now()
    const start = await snapshotWorkTree(this.dir)
    if (!start?.head) this.fail(`snapshotWorkTree answered ${JSON.stringify(start)}`)
    if (start.head !== this.head) this.fail(`the loop's start HEAD is ${start.head}, HEAD is ${this.head}`)
    const seen = this.snapshot()
    this.expectSame("start tree's file", blobsOf(seen), this.projectBlobs(start.tree))
    this.loop = {
      id,
      startedAt,
      startHead: start.head,
      startTree: start.tree,
      start: seen,
      iteration: 0,
      touched: new Set(),
      written: new Set(),
    }
    this.note(`loop ${id} starts`)
    this.writeOwnState(id, 0)
    await this.checkpoint(0)
  }

  private async iterate(edits: readonly AgentEdit[], again: boolean): Promise<void> {
    const loop = this.loop
    if (!loop) return this.skip("iteration: no loop runs")
    const decidedAgain = again && loop.iteration > 0
    this.note(`loop ${loop.id} iteration ${decidedAgain ? `${loop.iteration} (decided again)` : loop.iteration + 1}`)
    for (const edit of edits) this.agentEdit(edit)
    if (!decidedAgain) loop.iteration += 1
    this.writeOwnState(loop.id, loop.iteration)
    await this.checkpoint(loop.iteration)
  }

  private async checkpoint(iteration: number): Promise<void> {
    const loop = this.loop as LoopRun
    const seen = this.snapshot()
    const made = await makeCheckpoint(this.dir, loop.id, iteration)
    if (!made) this.fail("makeCheckpoint answered undefined in a git repository")
    if (iteration === 0)
      for (const ref of [...this.checkpoints.keys()])
        if (ref.startsWith(`refs/ralph/${loop.id}/`)) this.checkpoints.delete(ref)
    if (made.ref !== `refs/ralph/${loop.id}/${made.number}`)
      this.fail(`checkpoint ${made.ref} is not refs/ralph/${loop.id}/${made.number}`)
    const replaced = this.checkpoints.get(made.ref)
    const last = [...this.checkpoints.keys()]
      .filter((ref) => ref.startsWith(`refs/ralph/${loop.id}/`))
      .sort((a, b) => number(a) - number(b))
      .at(-1)
    if (replaced && !(replaced.iteration === iteration && last === made.ref))
      this.fail(`checkpoint ${made.ref} (iteration ${replaced.iteration}) was overwritten by iteration ${iteration}`)
    if (revParse(this.root, `${made.commit}^`) !== this.head) this.fail(`checkpoint ${made.ref}'s parent is not HEAD`)
    this.expectSame(`checkpoint ${made.number}'s file`, blobsOf(seen), this.projectBlobs(made.commit))
    this.checkpoints.set(made.ref, { commit: made.commit, iteration, files: seen })
    this.note(`  checkpoint ${loop.id}/${made.number}`)
  }

  private loopsWithCheckpoints(): string[] {
    return sorted([...this.checkpoints.keys()].map((ref) => ref.split("/")[2] as string))
  }

  private async rollback(pick: number, to: "default" | "start" | number): Promise<void> {
    const id = pickFrom(this.loopsWithCheckpoints(), pick)
    if (id === undefined) return this.skip("rollback: no loop has checkpoints")
    const listed = await listCheckpoints(this.dir, id)
    const expected = new Map(
      [...this.checkpoints].filter(([ref]) => ref.startsWith(`refs/ralph/${id}/`)).map(([ref, c]) => [ref, c.commit]),
    )
    this.expectSame("listed checkpoint", expected, new Map(listed.map((c) => [c.ref, c.commit])))
    const arg =
      to === "start"
        ? "--to-start"
        : to === "default"
          ? ""
          : String((pickFrom(listed, to) as (typeof listed)[number]).number)
    const target = rollbackTarget(listed, arg)
    if (!target.ok) return this.skip(`rollback refused: ${target.message.split(":")[0]}`)
    const present = this.snapshot()
    const saved = await saveBeforeRollback(this.dir, id)
    if (!saved) this.fail("saveBeforeRollback answered undefined in a git repository")
    const next = Math.max(...listed.map((c) => c.number)) + 1
    if (saved.number !== next || saved.ref !== `refs/ralph/${id}/${next}`)
      this.fail(`the rollback saved the work tree as ${saved.ref}, not as number ${next}`)
    this.expectSame("saved checkpoint's file", blobsOf(present), this.projectBlobs(saved.commit))
    this.checkpoints.set(saved.ref, { commit: saved.commit, iteration: undefined, files: present })

    const wanted = (this.checkpoints.get(target.checkpoint.ref) as Checkpoint).files
    const changes = await restoreCheckpoint(this.dir, saved.commit, target.checkpoint.commit)
    // docs/checkpoints.md: the checkpoint's files that differ or are missing are written, the files
    // it does not have are removed — nothing else: ignored files, `.opencode/`, the index stay.
    const expectedChanges = new Map<string, string>()
    for (const path of new Set([...present.keys(), ...wanted.keys()])) {
      const now = present.get(path)
      const then = wanted.get(path)
      if (now === then) continue
      if (then === undefined) {
        this.files.delete(path)
        expectedChanges.set(path.slice(this.prefix.length), "D")
      } else if (now === undefined && this.files.has(path)) {
        // A file git ignores now is there: it stays (it is in no checkpoint, so it could not be had back).
      } else {
        this.files.set(path, then)
        this.loop?.written.add(path)
        expectedChanges.set(path.slice(this.prefix.length), now === undefined ? "A" : "M")
      }
      this.loop?.touched.add(path)
    }
    // The files first (a file lost matters more than a wrong list), then what the rollback said it did.
    this.check()
    this.expectSame("rollback's reported change", expectedChanges, new Map(changes.map((c) => [c.path, c.status])))
    this.count("rollbacks")
    this.note(`rollback ${id} to ${target.checkpoint.number} (saved as ${saved.number}): ${changes.length} files`)
  }

  private async autoCommit(): Promise<void> {
    const loop = this.loop
    if (!loop) return this.skip("autoCommit: no loop runs")
    const now = this.snapshot()
    const own = (path: string) => OWN_FOLDERS.some((folder) => path.startsWith(this.prefix + folder))
    // docs/checkpoints.md: only the files the loop changed since it began — written since, and
    // differing from the work tree it began with — that differ from HEAD (not one committed or
    // reverted meanwhile, nor one git ignored at the start that is merely visible now).
    const credited = sorted([...now.keys(), ...loop.start.keys()]).filter(
      (path) =>
        now.get(path) !== loop.start.get(path) &&
        !own(path) &&
        this.listed(path) &&
        (!this.files.has(path) || loop.written.has(path)),
    )
    const tree = new Map(this.headFiles)
    for (const path of credited) {
      const content = this.files.get(path)
      if (content === undefined) tree.delete(path)
      else tree.set(path, content)
    }
    const committed = credited.filter((path) => tree.get(path) !== this.headFiles.get(path))
    // The index takes the committed files as committed; every other entry stays as it was — also one
    // of a file the loop changed that the commit leaves as HEAD has it (docs/checkpoints.md: what you
    // had staged stays staged). Setting such an entry to HEAD's would unstage what was staged before
    // the loop began (a user's change, or an earlier loop's `git mv`), which nothing keeps then.
    const index = new Map(this.index)
    for (const path of committed) {
      const content = tree.get(path)
      if (content === undefined) index.delete(path)
      else index.set(path, content)
    }
    const message = `story S-${this.counter}: the loop's work`
    const result = await commitLoopWork(
      this.dir,
      { startedAt: loop.startedAt, startHead: loop.startHead, startTree: loop.startTree },
      OWN_FOLDERS,
      message,
    ).catch((error: unknown) => ({ threw: String(error) }))
    if ("threw" in result) this.fail(`autoCommit threw: ${result.threw}`)
    if ("skipped" in result) {
      // Nothing differs from HEAD: nothing committed, the index as it was.
      if (committed.length > 0)
        this.fail(`autoCommit skipped (${result.skipped}) the loop's ${committed.map(show).join(", ")}`)
      this.count(
        credited.length
          ? "autoCommit: skipped (the loop's changes come to nothing against HEAD)"
          : "autoCommit: skipped",
      )
      return this.note(`autoCommit: skipped (${result.skipped})`)
    }
    const newHead = revParse(this.root, "HEAD")
    if (newHead === this.head) this.fail("autoCommit said it committed, HEAD did not move")
    if (sh(this.root, ["rev-list", "--parents", "-n", "1", "HEAD"]).trim() !== `${newHead} ${this.head}`)
      this.fail("autoCommit's commit is not one commit on top of HEAD")
    const inCommit = sh(this.root, ["diff", "--name-only", "--no-renames", "-z", this.head, newHead])
      .split("\0")
      .filter(Boolean)
    // The user's own work is never committed: a user's file is in the commit only when it was changed
    // since the loop began (by the user: git cannot tell who wrote a file; docs/checkpoints.md).
    const usersUntouched = inCommit.filter((path) => this.user.has(path) && !loop.touched.has(path))
    if (usersUntouched.length)
      this.fail(
        `autoCommit committed the user's ${usersUntouched.map(show).join(", ")}, unchanged since the loop began`,
      )
    const touchedByUser = inCommit.filter((path) => this.user.has(path))
    if (touchedByUser.length) this.count("autoCommit: took a user's file changed during the loop")
    this.expectSame("autoCommit's committed file", blobsOf(tree), treeBlobs(this.root, newHead))
    if (
      result.committed !== `main ${newHead.slice(0, result.committed.length - 5)}` ||
      result.files !== committed.length
    )
      this.fail(
        `autoCommit answered ${JSON.stringify(result)}, expected main ${newHead.slice(0, 8)}… with ${committed.length} files`,
      )
    this.head = newHead
    this.headFiles = tree
    this.index = index
    this.mainAncestors.add(newHead)
    this.count("autoCommit: committed")
    this.note(
      `autoCommit: committed ${committed.map(show).join(", ")}${touchedByUser.length ? ` (the user changed ${touchedByUser.map(show).join(", ")} during the loop)` : ""}`,
    )
  }

  private async cleanCheckpoints(pick: number): Promise<void> {
    const id = pickFrom(
      this.loopsWithCheckpoints().filter((l) => l !== this.loop?.id),
      pick,
    )
    if (id === undefined) return this.skip("clean: no ended loop has checkpoints")
    const mine = [...this.checkpoints.keys()].filter((ref) => ref.startsWith(`refs/ralph/${id}/`))
    const removed = await removeCheckpoints(this.dir, id)
    if (removed !== mine.length) this.fail(`removeCheckpoints(${id}) removed ${removed}, the loop had ${mine.length}`)
    for (const ref of mine) this.checkpoints.delete(ref)
    this.note(`clean: the checkpoints of ${id} (${removed})`)
  }

  // ---- worktree loops --------------------------------------------------------------------------

  /** The new worktree's place among the live ones (what the edit and finish steps pick by). */
  private async makeWorktree(withChanges: boolean): Promise<number | undefined> {
    if (this.prefix) return this.skip("worktree: the project is not the repository's top folder")
    if (this.live().length >= 2) return this.skip("worktree: two run already")
    this.worktreeCount += 1
    const name = `wt-${this.worktreeCount}`
    const { path, base } = await createWorktree(this.dir, name, withChanges)
    if (path !== join(this.root, ".opencode/ralph-loop/worktrees", name)) this.fail(`worktree ${name} made at ${path}`)
    if (base.commit !== this.head || base.branch !== "main")
      this.fail(`worktree ${name}'s base is ${JSON.stringify(base)}`)
    const files = withChanges ? this.snapshot() : new Map(this.headFiles)
    const carried = new Set(
      [...new Set([...files.keys(), ...this.headFiles.keys()])].filter((p) => files.get(p) !== this.headFiles.get(p)),
    )
    this.worktrees.set(name, {
      name,
      path,
      branch: `ralph/${name}`,
      base: this.head,
      baseFiles: new Map(this.headFiles),
      tip: this.head,
      tipFiles: new Map(this.headFiles),
      files,
      index: new Map(this.headFiles),
      ancestors: new Set(this.mainAncestors),
      state: "live",
      carried,
      edited: new Set(),
    })
    this.note(`worktree ${name}${withChanges ? ` with the user's changes (${carried.size} files)` : ""}`)
    return this.live().length - 1
  }

  private live(): Worktree[] {
    return [...this.worktrees.values()].filter((w) => w.state === "live")
  }

  private worktreeEdits(pick: number, edits: readonly WorktreeEdit[]): void {
    const tree = pickFrom(this.live(), pick)
    if (!tree) return this.skip("worktree edit: no worktree loop runs")
    this.note(`worktree ${tree.name}: the agent works`)
    const put = (path: string, content: string) => {
      mkdirSync(dirname(join(tree.path, path)), { recursive: true })
      writeFileSync(join(tree.path, path), content)
      tree.files.set(path, content)
      tree.edited.add(path)
    }
    const existing = () => sorted(LOOP_FILES).filter((f) => tree.files.has(f))
    for (const edit of edits) {
      if (edit.op === "write") {
        const path = pickFrom(sorted(LOOP_FILES), edit.pick) as string
        put(path, this.content("loop"))
        this.note(`  agent writes ${show(path)}`)
      } else if (edit.op === "delete" || edit.op === "rename") {
        const path = pickFrom(existing(), edit.pick)
        if (path === undefined) continue
        const content = tree.files.get(path) as string
        unlinkSync(join(tree.path, path))
        tree.files.delete(path)
        tree.edited.add(path)
        if (edit.op === "rename") {
          // A rename with an edit: git's merge would pair an exact rename with the other side's edit.
          const to = `${path.slice(0, path.lastIndexOf("/") + 1)}moved ${path.slice(path.lastIndexOf("/") + 1)}`
          put(to, `${content.trimEnd()} (moved)\n`)
          this.note(`  agent renames ${show(path)} → ${show(to)}`)
        } else this.note(`  agent deletes ${show(path)}`)
      } else {
        const path = ["user.log", "ignored dir/keep.txt", "build.log"][edit.pick % 3] as string
        put(path, this.content("loop"))
        sh(tree.path, ["add", "-f", "--", path])
        tree.index.set(path, tree.files.get(path) as string)
        this.note(`  agent writes the ignored ${show(path)} and adds it with git add -f`)
      }
    }
  }

  private async finishWorktree(pick: number, strategy: WorktreeState["mergeStrategy"]): Promise<void> {
    const tree = pickFrom(this.live(), pick)
    if (!tree) return this.skip("worktree finish: no worktree loop runs")
    // What `git add -A` takes in the worktree: tracked files, and untracked ones not ignored.
    const work: Files = new Map(
      [...tree.files].filter(
        ([path]) => !path.startsWith(".opencode/") && (tree.index.has(path) || !this.ignored(path, tree.files)),
      ),
    )
    const commit = await commitWork(tree.path, `ralph: the task of ${tree.name}`)
    if (sameFiles(work, tree.tipFiles)) {
      if (commit !== undefined) this.fail(`commitWork made a commit in ${tree.name}, which had no change`)
    } else {
      if (commit === undefined) this.fail(`commitWork made no commit of ${tree.name}'s work`)
      if (sh(tree.path, ["rev-list", "--parents", "-n", "1", commit]).trim() !== `${commit} ${tree.tip}`)
        this.fail(`${tree.name}'s commit is not on its branch's tip`)
      this.expectSame(`${tree.name}'s committed file`, blobsOf(work), treeBlobs(tree.path, commit))
      // The plugin commits only the loop's work there (and the user's changes it was asked to carry).
      const foreign = sh(tree.path, ["diff", "--name-only", "--no-renames", "-z", tree.base, commit])
        .split("\0")
        .filter((path) => path && !tree.edited.has(path) && !tree.carried.has(path))
      if (foreign.length)
        this.fail(
          `${tree.name}'s commit holds ${foreign.map(show).join(", ")}, which neither the agent nor --with-changes put there`,
        )
      tree.tip = commit
      tree.tipFiles = work
      tree.index = new Map(work)
      tree.ancestors.add(commit)
    }
    const state: WorktreeState = {
      name: tree.name,
      branch: tree.branch,
      mainDirectory: this.dir,
      base: { branch: "main", commit: tree.base },
      mergeStrategy: strategy,
      createdAt: 0,
    }
    const facts = await mergeFacts(state, strategy)
    const mainClean = ![...new Set([...this.files.keys(), ...this.index.keys(), ...this.headFiles.keys()])].some(
      (path) => !path.startsWith(".opencode/") && this.listed(path),
    )
    const expected: Omit<MergeFacts, "conflicts"> = {
      strategy,
      branch: tree.branch,
      ahead: !this.mainAncestors.has(tree.tip),
      onBaseBranch: true,
      baseBranch: "main",
      fastForward: tree.ancestors.has(this.head),
      mainClean,
    }
    const { conflicts, ...found } = facts
    const wrong = Object.keys(expected).filter(
      (key) => expected[key as keyof typeof expected] !== found[key as keyof typeof found],
    )
    if (wrong.length)
      this.fail(
        `mergeFacts of ${tree.name}: ${wrong.map((key) => `${key} is ${String(found[key as keyof typeof found])}`).join(", ")}; expected ${JSON.stringify(expected)}`,
      )
    const action = mergeAction(facts)
    this.count(
      `merge plan: ${action.kind}${action.kind === "keep" ? ` (${action.reason.replace(/ralph\/\S+/, "the branch")})` : ""}`,
    )
    this.note(
      `worktree ${tree.name} completes (${strategy}): ${action.kind}${conflicts.length ? ` in ${conflicts.map(show).join(", ")}` : ""}`,
    )
    if (action.kind === "fast-forward" || action.kind === "merge") {
      const merged = await this.mergeBack(tree, action.kind)
      if (!merged) {
        tree.state = "kept"
        return
      }
    } else if (action.kind !== "nothing") {
      tree.state = "kept"
      return
    }
    await removeWorktree(this.dir, tree.name)
    this.worktrees.delete(tree.name)
    this.note(`  worktree ${tree.name} and its branch removed`)
  }

  /** The fast-forward or merge commit, checked against what it may change: false when git refused (nothing may have changed then). */
  private async mergeBack(tree: Worktree, kind: "fast-forward" | "merge"): Promise<boolean> {
    const before = {
      head: this.head,
      headFiles: this.headFiles,
      files: new Map(this.files),
      index: new Map(this.index),
    }
    const branchChanged = (path: string) => tree.tipFiles.get(path) !== tree.baseFiles.get(path)
    // docs/worktrees.md: no merge back while the user's uncommitted work is in its way — staged
    // changes, or a file it writes (one the branch changed, unlike HEAD) changed, or there untracked
    // (an ignored one too, which no `git status` shows).
    const paths = new Set([...tree.tipFiles.keys(), ...tree.baseFiles.keys()])
    const writes = [...paths].filter(
      (path) => branchChanged(path) && tree.tipFiles.get(path) !== before.headFiles.get(path),
    )
    const staged = !sameFiles(this.index, this.headFiles)
    const inTheWay = writes.filter((path) => before.files.get(path) !== before.headFiles.get(path))
    const refused = await (kind === "fast-forward"
      ? fastForward(this.dir, tree.branch)
      : mergeBranch(this.dir, tree.branch, `Merge ${tree.branch}: the task`)
    ).then(
      () => undefined,
      (error: unknown) => String(error),
    )
    if (existsSync(join(this.root, ".git", "MERGE_HEAD")))
      this.fail(`the ${kind} left the user's repository in the middle of a merge`)
    const blocked = staged || inTheWay.length > 0
    if (refused !== undefined) {
      if (!blocked)
        this.fail(`the ${kind} of ${tree.branch} failed, though none of the user's work was in its way: ${refused}`)
      this.count(`merge back refused (${kind})`)
      this.note(`  no ${kind}: ${refused.split("\n")[0]}`)
      return false
    }
    if (blocked)
      this.fail(
        `the ${kind} of ${tree.branch} was made with the user's ${staged ? "staged changes" : inTheWay.map(show).join(", ")} in its way`,
      )
    const head = revParse(this.root, "HEAD")
    const parents = sh(this.root, ["rev-list", "--parents", "-n", "1", "HEAD"]).trim().split(" ").slice(1)
    if (kind === "fast-forward" && head !== tree.tip)
      this.fail(`the fast-forward left HEAD at ${head}, not ${tree.branch}'s ${tree.tip}`)
    if (kind === "merge" && parents.join(" ") !== `${before.head} ${tree.tip}`)
      this.fail(`the merge commit's parents are ${parents.join(" ")}`)
    const result = treeBlobs(this.root, head)
    const headFiles = new Map(before.headFiles)
    const lost: string[] = []
    for (const path of new Set([...result.keys(), ...before.headFiles.keys()])) {
      const then = before.headFiles.get(path)
      const now = result.get(path)
      if (now === (then === undefined ? undefined : blob(then))) continue
      if (!branchChanged(path)) this.fail(`the ${kind} changed ${show(path)}, which ${tree.branch} did not change`)
      const mine = before.files.get(path)
      // The user's copy of a file the merge changes must have been the committed one (or the merge's own result).
      if (mine !== then && (mine === undefined ? undefined : blob(mine)) !== now) lost.push(path)
      if (now === undefined) {
        this.files.delete(path)
        this.index.delete(path)
        headFiles.delete(path)
      } else {
        const content = existsSync(join(this.root, path)) ? readFileSync(join(this.root, path), "utf8") : undefined
        if (content === undefined || blob(content) !== now)
          this.fail(`after the ${kind}, ${show(path)} on disk is not the merged file`)
        this.files.set(path, content)
        this.index.set(path, content)
        headFiles.set(path, content)
        this.loop?.written.add(path)
      }
      this.loop?.touched.add(path)
    }
    if (lost.length)
      this.fail(
        `the ${kind} of ${tree.branch} overwrote the user's ${lost.map(show).join(", ")} (${lost.map((p) => JSON.stringify(before.files.get(p))).join(", ")})`,
      )
    this.head = head
    this.headFiles = headFiles
    this.expectSame("merged HEAD's file", result, blobsOf(this.headFiles))
    for (const commit of tree.ancestors) this.mainAncestors.add(commit)
    this.mainAncestors.add(head)
    this.count(`merged back (${kind})`)
    return true
  }

  private async cleanWorktrees(force: boolean): Promise<void> {
    const kept = [...this.worktrees.values()].filter((w) => w.state === "kept")
    if (kept.length === 0) return this.skip("clean: no ended worktree loop")
    for (const tree of kept) {
      const ahead = await unmergedCommits(this.dir, tree.branch)
      const expectedAhead = [...tree.ancestors].filter((c) => !this.mainAncestors.has(c)).length
      if (ahead !== expectedAhead) this.fail(`unmergedCommits(${tree.branch}) is ${ahead}, expected ${expectedAhead}`)
      // Its work was committed: what is left beyond its commit are the files git ignores there.
      const dirty = await worktreeDirty(tree.path)
      const ignoredThere = [...tree.files.keys()].some(
        (path) => !path.startsWith(".opencode/") && !tree.index.has(path) && this.ignored(path, tree.files),
      )
      if (dirty !== ignoredThere)
        this.fail(
          `worktreeDirty says ${tree.name} ${dirty ? "holds" : "holds no"} files beyond its commit; ${ignoredThere ? "it holds ignored ones" : "its work was committed"}`,
        )
      if (dirty && !force) {
        this.note(`clean: keeps ${tree.name} (files git ignores in it)`)
        continue
      }
      if (ahead > 0 && !force) {
        this.note(`clean: keeps ${tree.name} (${ahead} commits not in main)`)
        continue
      }
      await removeWorktree(this.dir, tree.name, force)
      this.worktrees.delete(tree.name)
      this.note(`clean: removes ${tree.name}${force ? " (--force)" : ""}`)
    }
  }

  // ---- the checks after every step -------------------------------------------------------------

  check(): void {
    const problems: string[] = []
    const add = (what: string, expected: Map<string, string>, actual: Map<string, string>, short = false) =>
      problems.push(...differences(what, expected, actual, (v) => (short ? v.slice(0, 8) : JSON.stringify(v))))
    // Every file, with the content its owner last wrote (or the step of the plugin's left it).
    add(
      "file",
      this.files,
      readDisk(this.root, (path) => path === ".git" || path === `${this.prefix}.opencode/ralph-loop/worktrees`),
    )
    if (readFileSync(join(this.root, ".git", "HEAD"), "utf8") !== "ref: refs/heads/main\n")
      problems.push("HEAD is no longer on main")
    add("index entry", blobsOf(this.index), indexBlobs(this.root), true)
    const expectedRefs = new Map<string, string>([
      ["refs/heads/main", this.head],
      ["refs/stash", this.stash],
    ])
    for (const [ref, c] of this.checkpoints) expectedRefs.set(ref, c.commit)
    for (const tree of this.worktrees.values()) expectedRefs.set(`refs/heads/${tree.branch}`, tree.tip)
    add("ref", expectedRefs, refs(this.root), true)
    if (
      readFileSync(join(this.root, ".git", "logs", "refs", "stash"), "utf8")
        .trim()
        .split("\n").length !== 1
    )
      problems.push("the stash no longer holds exactly the user's one entry")
    const leftovers = readdirSync(join(this.root, ".git")).filter(
      (f) => f === "MERGE_HEAD" || f === "index.lock" || f.startsWith("ralph-index-") || f.startsWith("index.ralph-"),
    )
    if (leftovers.length) problems.push(`left in .git: ${leftovers.join(", ")}`)
    const gitWorktrees = existsSync(join(this.root, ".git", "worktrees"))
      ? readdirSync(join(this.root, ".git", "worktrees"))
      : []
    if (sorted(gitWorktrees).join() !== sorted(this.worktrees.keys()).join())
      problems.push(
        `git knows the worktrees ${gitWorktrees.join(", ") || "(none)"}, expected ${[...this.worktrees.keys()].join(", ") || "(none)"}`,
      )
    const folders = join(this.root, this.prefix, ".opencode/ralph-loop/worktrees")
    const onDisk = existsSync(folders) ? readdirSync(folders) : []
    if (sorted(onDisk).join() !== sorted(this.worktrees.keys()).join())
      problems.push(
        `worktree folders ${onDisk.join(", ") || "(none)"}, expected ${[...this.worktrees.keys()].join(", ") || "(none)"}`,
      )
    for (const tree of this.worktrees.values()) {
      if (!existsSync(tree.path)) continue
      add(
        `${tree.name}'s file`,
        tree.files,
        readDisk(tree.path, (path) => path === ".git" || path === ".opencode"),
      )
      add(`${tree.name}'s index entry`, blobsOf(tree.index), indexBlobs(tree.path), true)
    }
    if (problems.length) this.fail(problems)
  }
}

const number = (ref: string): number => Number(ref.slice(ref.lastIndexOf("/") + 1))

/** Plays the steps on a fresh repository; the error names the broken promise, with the steps played. */
export async function playSteps(config: RunConfig, steps: readonly Step[], stats: Map<string, number>): Promise<void> {
  const world = World.create(config, stats)
  try {
    for (const [i, step] of steps.entries()) {
      world.trace.push(`#${i} ${JSON.stringify(step)}`)
      try {
        await world.play(step)
      } catch (error) {
        const message =
          error instanceof Broken
            ? error.message
            : `the step threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`
        throw new Error(
          `${message}\n\nSteps played (${config.sub ? "project in a folder of the repository" : "project at the repository's top"}):\n${world.trace.join("\n")}`,
        )
      }
    }
    if (process.env.RALPH_FUZZ_TRACE === "1") console.log(world.trace.join("\n"))
    stats.set("runs", (stats.get("runs") ?? 0) + 1)
    stats.set("steps", (stats.get("steps") ?? 0) + steps.length)
  } finally {
    world.dispose()
  }
}
