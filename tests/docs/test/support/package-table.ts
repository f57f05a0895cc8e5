import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** A Markdown table: its header cells and its rows, each with the line it is on (1-based). */
export interface MarkdownTable {
  header: string[]
  rows: Array<{ cells: string[]; line: number }>
}

/** What a package's `package.json` says that a package table may repeat. */
export interface PackageManifest {
  /** The directory under `packages/`. */
  dir: string
  name: string
  private: boolean
  /** The `@sd/*` packages of `dependencies`, sorted. */
  sdDependencies: string[]
  /** The `exports` keys but `./package.json`, written as tables write them: `.`, `/udp`. */
  entryPoints: string[]
}

/** Splits a table row into cells; a `|` inside inline code does not split. */
function cellsOf(row: string): string[] {
  const cells: string[] = []
  let cell = ''
  let code = false
  for (const ch of row.trim().replace(/^\|/, '').replace(/\|$/, '')) {
    if (ch === '`') code = !code
    if (ch === '|' && !code) {
      cells.push(cell.trim())
      cell = ''
    } else cell += ch
  }
  cells.push(cell.trim())
  return cells
}

/** The first table whose header cells satisfy `matches`, or undefined. */
export function markdownTable(
  markdown: string,
  matches: (header: string[]) => boolean,
): MarkdownTable | undefined {
  const lines = markdown.split('\n')
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\s*\|[\s|:-]+\|\s*$/.test(lines[i + 1]!)) continue
    const header = cellsOf(lines[i]!)
    if (!matches(header)) continue
    const rows: MarkdownTable['rows'] = []
    for (let j = i + 2; j < lines.length && lines[j]!.trim().startsWith('|'); j++)
      rows.push({ cells: cellsOf(lines[j]!), line: j + 1 })
    return { header, rows }
  }
  return undefined
}

/** Every `packages/<dir>/package.json` under `root`. */
export function packageManifests(root: string): PackageManifest[] {
  const dirs = readdirSync(join(root, 'packages')).filter((d) =>
    existsSync(join(root, 'packages', d, 'package.json')),
  )
  return dirs.sort().map((dir) => {
    const json = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'))
    return {
      dir,
      name: json.name,
      private: json.private === true,
      sdDependencies: Object.keys(json.dependencies ?? {})
        .filter((d) => d.startsWith('@sd/'))
        .sort(),
      entryPoints: Object.keys(json.exports ?? {})
        .filter((k) => k !== './package.json')
        .map((k) => (k === '.' ? '.' : k.slice(1)))
        .sort(),
    }
  })
}

const sdNames = (cell: string): string[] =>
  [...cell.matchAll(/`(@sd\/[a-z-]+)`/g)].map((m) => m[1]!).sort()

/** `.`, `/udp`...: the entry points a cell names as `` `/udp`: ``. */
const entryPointsOf = (cell: string): string[] =>
  [...cell.matchAll(/`(\.|\/[a-z-]+)`:/g)].map((m) => m[1]!).sort()

const list = (names: string[]) => (names.length === 0 ? 'nothing' : names.join(', '))

/**
 * Where a package table disagrees with the manifests, one message per disagreement, naming the
 * file, line and row. The first column names the package (`` `@sd/x` ``, linked or not; a link
 * must lead to its directory); a column headed `depends on` lists its `@sd/*` dependencies (or
 * none: "nothing of ours"); a column whose header mentions `entry points` names each entry of
 * `exports` as `` `/name`: ``. Every published package has a row.
 */
export function packageTableProblems(
  table: MarkdownTable,
  manifests: readonly PackageManifest[],
  file: string,
): string[] {
  const problems: string[] = []
  const byName = new Map(manifests.map((m) => [m.name, m]))
  const dependsOn = table.header.findIndex((h) => h.toLowerCase() === 'depends on')
  const entries = table.header.findIndex((h) => h.toLowerCase().includes('entry points'))
  const seen = new Set<string>()
  for (const { cells, line } of table.rows) {
    const where = `${file}:${line}`
    const name = sdNames(cells[0] ?? '')[0]
    if (name === undefined) {
      problems.push(`${where}: the row names no \`@sd/...\` package in its first column`)
      continue
    }
    const row = `${where} row ${name}`
    const manifest = byName.get(name)
    if (manifest === undefined) {
      problems.push(`${row}: no packages/*/package.json has this name`)
      continue
    }
    seen.add(name)
    const link = /\]\(([^)]+)\)/.exec(cells[0]!)?.[1]
    if (link !== undefined && link.replace(/\/$/, '') !== `packages/${manifest.dir}`)
      problems.push(`${row}: links to ${link}, but the package is packages/${manifest.dir}`)
    if (dependsOn >= 0) {
      const stated = sdNames(cells[dependsOn] ?? '')
      if (list(stated) !== list(manifest.sdDependencies))
        problems.push(
          `${row}: depends on ${list(stated)} says the table, ${list(manifest.sdDependencies)} says packages/${manifest.dir}/package.json`,
        )
    }
    if (entries >= 0) {
      const stated = entryPointsOf(cells[entries] ?? '')
      if (list(stated) !== list(manifest.entryPoints))
        problems.push(
          `${row}: entry points ${list(stated)} says the table, ${list(manifest.entryPoints)} says the exports of packages/${manifest.dir}/package.json`,
        )
    }
  }
  for (const m of manifests)
    if (!m.private && !seen.has(m.name))
      problems.push(`${file}: no row for ${m.name} (packages/${m.dir})`)
  return problems
}
