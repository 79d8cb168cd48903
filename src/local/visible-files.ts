/**
 * What the agent's read tools may see in `review --local` (CONTRACT §17): the files a pull request's
 * clone would hold — tracked files and untracked files `.gitignore` does not exclude
 * (`git ls-files --cached --others --exclude-standard`) — never a developer's ignored `.env`,
 * credentials or `node_modules`.
 */

/**
 * A `ToolContext.isVisible` predicate over `files` (repository-relative POSIX paths): true for a
 * listed file, for every directory above one, and for the root `.`; false for everything else.
 */
export function visiblePathPredicate(files: readonly string[]): (relative: string) => boolean {
  const visible = new Set<string>(['.']);
  for (const file of files) {
    visible.add(file);
    for (let slash = file.lastIndexOf('/'); slash > 0; slash = file.lastIndexOf('/', slash - 1)) {
      const dir = file.slice(0, slash);
      if (visible.has(dir)) break;
      visible.add(dir);
    }
  }
  return (relative) => visible.has(relative);
}
