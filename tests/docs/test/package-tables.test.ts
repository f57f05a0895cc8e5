import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import {
  markdownTable,
  type PackageManifest,
  packageManifests,
  packageTableProblems,
} from './support/package-table.js'

// The package tables of the root README and the architecture say what each package.json says:
// the same packages, in their directories, with their dependencies and entry points.
const root = fileURLToPath(new URL('../../../', import.meta.url))
const manifests = packageManifests(root)

/** The package table: first column `package`, and a `depends on` column. */
const isPackageTable = (header: string[]) =>
  header[0] === 'package' && header.includes('depends on')

function tableOf(file: string) {
  const table = markdownTable(readFileSync(join(root, file), 'utf8'), isPackageTable)
  if (table === undefined)
    throw new Error(`${file} has no table with the columns "package" and "depends on"`)
  return table
}

describe('package tables', () => {
  it('finds the six published packages', () => {
    expect(manifests.filter((m) => !m.private).map((m) => m.name)).toEqual([
      '@sd/clocks',
      '@sd/deadlock',
      '@sd/election',
      '@sd/mutex',
      '@sd/timesync',
      '@sd/transport',
    ])
  })

  it("the root README's table: every package, its directory and its @sd dependencies", () => {
    const table = tableOf('README.md')
    expect(packageTableProblems(table, manifests, 'README.md')).toEqual([])
  })

  it("the architecture's table: every package, its dependencies and its entry points", () => {
    const table = tableOf('docs/architecture.md')
    expect(table.header.some((h) => h.includes('entry points'))).toBe(true)
    expect(packageTableProblems(table, manifests, 'docs/architecture.md')).toEqual([])
  })
})

describe('packageTableProblems on a wrong table', () => {
  const manifest = (name: string, deps: string[], entries = ['.']): PackageManifest => ({
    dir: name.slice('@sd/'.length),
    name,
    private: false,
    sdDependencies: deps,
    entryPoints: entries,
  })
  const known = [
    manifest('@sd/transport', [], ['.', '/udp']),
    manifest('@sd/mutex', ['@sd/clocks', '@sd/transport']),
    manifest('@sd/clocks', []),
  ]
  const table = (rows: string[]) =>
    markdownTable(
      ['| package | entry points | depends on |', '|---|---|---|', ...rows].join('\n'),
      isPackageTable,
    )!

  it('accepts a true table, with a `|` inside inline code', () => {
    const ok = table([
      '| [`@sd/transport`](packages/transport) | `.`: `a | b`; `/udp`: sockets | nothing of ours |',
      '| `@sd/mutex` | `.`: locks | `@sd/transport`, `@sd/clocks` |',
      '| `@sd/clocks` | `.`: clocks | nothing |',
    ])
    expect(packageTableProblems(ok, known, 'T.md')).toEqual([])
  })

  it('names the row of each disagreement, and the package without a row', () => {
    const wrong = table([
      '| [`@sd/transport`](packages/clocks) | `.`: all | nothing of ours |',
      '| `@sd/mutex` | `.`: locks | `@sd/transport` |',
      '| `@sd/locks` | `.`: x | nothing |',
    ])
    expect(packageTableProblems(wrong, known, 'T.md')).toEqual([
      'T.md:3 row @sd/transport: links to packages/clocks, but the package is packages/transport',
      'T.md:3 row @sd/transport: entry points . says the table, ., /udp says the exports of packages/transport/package.json',
      'T.md:4 row @sd/mutex: depends on @sd/transport says the table, @sd/clocks, @sd/transport says packages/mutex/package.json',
      'T.md:5 row @sd/locks: no packages/*/package.json has this name',
      'T.md: no row for @sd/clocks (packages/clocks)',
    ])
  })
})
