// The one way the plugin and the CLI run git. Every call answers with a typed result — it never
// rejects — so a failure cannot be mistaken for "no files" or "clean": callers that need the output
// use `gitText`, which throws a `GitError` naming the command and git's own words. One timeout
// policy and one bound on the output; paths are never quoted (`core.quotepath=off`). Lists of paths go
// on stdin (path-list.ts), never as arguments.
import { type ChildProcess, execFile, type ExecFileException } from "node:child_process"

/** How long a git call may take: `sample` is the progress sample on the turn's end, `work` the rest. */
const GIT_TIMEOUT_MS = { sample: 5_000, work: 120_000 } as const
/** git's output beyond this is a failure (never a silently cut list of files). */
const GIT_MAX_OUTPUT = 64 * 1024 * 1024

export interface GitOptions {
  env?: Record<string, string>
  /** Written to git's stdin. */
  input?: string
  timeout?: keyof typeof GIT_TIMEOUT_MS
  /** Exit codes that answer a question rather than fail (`merge-base --is-ancestor`, `diff --quiet`). */
  answers?: readonly number[]
}

export type GitResult =
  | { ok: true; code: number; stdout: string; stderr: string }
  | { ok: false; code: number | undefined; stdout: string; stderr: string; reason: string }

export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly result: Extract<GitResult, { ok: false }>,
  ) {
    super(`git ${args[0] ?? ""}: ${result.reason}`)
  }
}

/**
 * Runs git. The process is started on a later turn of the event loop, never in the caller's: a job
 * that an event hook starts (a turn end's sample and checkpoint) would otherwise fork inside
 * OpenCode's publishing of that event, and hold up the events after it (session.idle by ~15 ms).
 */
export function git(directory: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  return new Promise((resolve) =>
    setImmediate(() => {
      let child: ChildProcess
      try {
        child = spawnGit(directory, args, options, resolve)
      } catch (error) {
        // Node throws, rather than calls back, when git cannot be started at all (E2BIG: a command line
        // past the system's limit).
        const code = (error as NodeJS.ErrnoException).code
        const reason = code === "E2BIG" ? "its command line is longer than the system allows" : String(error)
        return resolve({ ok: false, code: undefined, stdout: "", stderr: "", reason })
      }
      if (options.input !== undefined) {
        // git may exit before it reads all of it (EPIPE): its exit code says what happened, the pipe's
        // error nothing more.
        child.stdin?.on("error", () => undefined)
        child.stdin?.end(options.input)
      }
    }),
  )
}

type Resolve = (result: GitResult) => void

function spawnGit(directory: string, args: readonly string[], options: GitOptions, resolve: Resolve) {
  return execFile(
    "git",
    ["-c", "core.quotepath=off", ...args],
    {
      cwd: directory,
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...options.env },
      timeout: GIT_TIMEOUT_MS[options.timeout ?? "work"],
      maxBuffer: GIT_MAX_OUTPUT,
      windowsHide: true,
    },
    (error, stdout, stderr) => {
      if (!error) return resolve({ ok: true, code: 0, stdout, stderr })
      const code = typeof error.code === "number" ? error.code : undefined
      if (code !== undefined && options.answers?.includes(code)) return resolve({ ok: true, code, stdout, stderr })
      resolve({ ok: false, code, stdout, stderr, reason: reasonOf(error, stderr, stdout) })
    },
  )
}

/** Whether a failed call failed because the folder is not in a git repository at all. */
export const notARepository = (result: GitResult): boolean => !result.ok && /not a git repository/i.test(result.stderr)

/** Whether `error` is a GitError for a folder outside any git repository (an answer, not a fault, to some callers). */
export const isNotARepository = (error: unknown): boolean => error instanceof GitError && notARepository(error.result)

/** git's output; a `GitError` when the call failed. */
export async function gitText(directory: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  const result = await git(directory, args, options)
  if (!result.ok) throw new GitError(args, result)
  return result.stdout
}

/** Whether git answered with exit code 0 (for questions: a failed call throws, it is not "no"). */
export async function gitAsks(directory: string, args: readonly string[], options: GitOptions = {}): Promise<boolean> {
  const result = await git(directory, args, { ...options, answers: [1, ...(options.answers ?? [])] })
  if (!result.ok) throw new GitError(args, result)
  return result.code === 0
}

function reasonOf(error: ExecFileException, stderr: string, stdout: string): string {
  if (error.code === "ENOENT") return "git is not installed (or not on PATH)"
  if (error.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") return `its output passed ${GIT_MAX_OUTPUT / 1024 / 1024} MB`
  if (error.killed || error.signal) return "it did not finish in time"
  const words = (stderr || stdout).trim().split("\n").slice(-3).join(" ")
  return words || error.message
}
