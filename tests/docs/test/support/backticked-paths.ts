/** A file path the prose of a Markdown file names in inline code, and the line it is on. */
export interface NamedPath {
  path: string
  line: number
}

// A path as prose names one: segments with a slash, ending in a file extension or a slash.
// Placeholders (`<scenario>`), globs, options, URLs, scoped packages and system paths are not files
// of the repository.
const PATHLIKE =
  /^[\w.-]+(?:\/[\w.-]+)*\/(?:[\w.-]+\.(?:[cm]?[jt]s|json|md|ya?ml|trace|png|html))?$/
const SYSTEM = /^\/|^(?:tmp|dev|proc|sys|etc|usr|var)\//

/** The repository paths a Markdown file names in inline code, outside fenced blocks. */
export function backtickedPaths(markdown: string): NamedPath[] {
  const paths: NamedPath[] = []
  let fenced = false
  markdown.split('\n').forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced
      return
    }
    if (fenced) return
    for (const m of line.matchAll(/`([^`\s]+)`/g)) {
      const path = m[1]!.replace(/:\d+$/, '') // file.ts:12
      if (path.includes('/') && PATHLIKE.test(path) && !SYSTEM.test(path))
        paths.push({ path, line: index + 1 })
    }
  })
  return paths
}
