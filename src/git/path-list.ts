// Lists of paths go to git on its stdin (`--stdin -z`, `--pathspec-from-file=- --pathspec-file-nul`),
// never as arguments: tens of thousands of names pass the system's limit on a command line (E2BIG),
// and git matches pathspecs in time that grows with their number times the files'.

/** NUL-terminated paths, as git reads them on its stdin with `-z` (or `--pathspec-file-nul`). */
export const pathList = (paths: Iterable<string>): string => {
  let input = ""
  for (const path of paths) input += `${path}\0`
  return input
}
