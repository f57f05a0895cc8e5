/** A link of a Markdown file: its target as written and the line it is on. */
export interface MarkdownLink {
  target: string
  line: number
}

/**
 * Inline links and images `[text](target "title")` and reference definitions `[id]: target`,
 * outside fenced code blocks and inline code (where brackets are just code).
 */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = []
  let fenced = false
  markdown.split('\n').forEach((raw, index) => {
    if (/^\s*(```|~~~)/.test(raw)) fenced = !fenced
    if (fenced) return
    const line = raw.replace(/`[^`]*`/g, '')
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      links.push({ target: m[1]!, line: index + 1 })
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line)
    if (definition) links.push({ target: definition[1]!, line: index + 1 })
  })
  return links
}

/** Whether a target leaves the repository (a URL with a scheme, or protocol-relative). */
export function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')
}

/** The anchors GitHub gives the headings of a Markdown file (lower case, punctuation dropped). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}
