import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { backtickedPaths } from './support/backticked-paths.js'
import { documentationFiles } from './support/documentation-files.js'

// A file the prose names (`src/golden.ts`, `bench/results/`) exists: renamed or deleted files leave
// stale sentences behind that no link check sees. A path may be written from the repository root,
// from the Markdown file's directory or from its workspace's; build outputs git ignores (`dist/`,
// `bench/out/`) need not exist.
const root = fileURLToPath(new URL('../../../', import.meta.url))

/** The workspace directory a file belongs to (`apps/playground`), or '' for the root. */
const workspaceOf = (file: string) => /^(?:packages|apps|tests)\/[^/]+/.exec(file)?.[0] ?? ''

/** Those of `paths` git would ignore, or undefined outside a git checkout. */
function ignored(paths: string[]): Set<string> | undefined {
  if (paths.length === 0) return new Set()
  try {
    const out = execFileSync('git', ['check-ignore', '--no-index', '--stdin'], {
      cwd: root,
      input: paths.join('\n'),
      encoding: 'utf8',
    })
    return new Set(out.split('\n').filter((p) => p !== ''))
  } catch (error) {
    // Exit status 1: none is ignored.
    if ((error as { status?: number }).status === 1) return new Set()
    return undefined
  }
}

describe('paths named in the documentation', () => {
  it('finds the paths prose names, and only those', () => {
    const text = [
      'See `src/golden.ts:12`, `apps/playground/testdata/` and `bench/README.md`.',
      'Not `<scenario>.trace`, `@sd/transport/udp`, `/tmp/flood.json`, `a/*.ts`, `--n 3`, `x.ts`.',
      '```',
      '`src/in-a-fence.ts`',
      '```',
    ].join('\n')
    expect(backtickedPaths(text)).toEqual([
      { path: 'src/golden.ts', line: 1 },
      { path: 'apps/playground/testdata/', line: 1 },
      { path: 'bench/README.md', line: 1 },
    ])
  })

  it('every file or folder the READMEs and docs/ name in inline code exists', (ctx) => {
    const files = documentationFiles(root)
    const missing: Array<{ where: string; candidates: string[] }> = []
    let checked = 0
    for (const file of files) {
      for (const { path, line } of backtickedPaths(readFileSync(join(root, file), 'utf8'))) {
        checked++
        const bases = new Set(['', dirname(file), workspaceOf(file)])
        const candidates = [...bases].map((base) => join(base, path))
        if (!candidates.some((c) => existsSync(join(root, c))))
          missing.push({ where: `${file}:${line} names \`${path}\``, candidates })
      }
    }
    expect(checked).toBeGreaterThan(50)
    const ignoredPaths = ignored(missing.flatMap((m) => m.candidates))
    if (ignoredPaths === undefined) {
      if (process.env.SD_REQUIRE_ALL === '1') throw new Error('git check-ignore failed')
      ctx.skip('not a git checkout: cannot tell build outputs from missing files')
      return
    }
    const stale = missing
      .filter((m) => !m.candidates.some((c) => ignoredPaths.has(c)))
      .map((m) => `${m.where}, which does not exist`)
    expect(stale).toEqual([])
  })
})
