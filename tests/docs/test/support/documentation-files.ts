import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The documentation whose links and paths must hold, relative to `root`: the root README and
 * CONTRIBUTING.md, every Markdown file under docs/, and the README of every workspace.
 */
export function documentationFiles(root: string): string[] {
  const files = ['README.md', 'CONTRIBUTING.md'].filter((f) => existsSync(join(root, f)))
  const markdownUnder = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return markdownUnder(path)
      return entry.name.endsWith('.md') ? [path] : []
    })
  if (existsSync(join(root, 'docs'))) files.push(...markdownUnder('docs'))
  for (const parent of ['packages', 'apps', 'tests']) {
    if (!existsSync(join(root, parent))) continue
    for (const workspace of readdirSync(join(root, parent))) {
      const readme = join(parent, workspace, 'README.md')
      if (existsSync(join(root, readme))) files.push(readme)
    }
  }
  if (existsSync(join(root, 'bench', 'README.md'))) files.push(join('bench', 'README.md'))
  return files
}
