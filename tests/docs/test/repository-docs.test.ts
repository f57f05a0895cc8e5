import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { documentationFiles } from './support/documentation-files.js'
import { headingAnchors, isExternal, markdownLinks } from './support/markdown-links.js'

// Users and contributors have the repository and nothing else: no file may point outside it, and
// every relative link of the documentation must lead somewhere.
const root = fileURLToPath(new URL('../../../', import.meta.url))

function trackedFiles(): string[] | undefined {
  try {
    const out = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    return out.split('\0').filter((f) => f !== '')
  } catch {
    return undefined // not a git checkout (an unpacked tarball, say)
  }
}

describe('repository documentation', () => {
  it('no tracked file outside .ci/ refers to a design file or folder outside the repository', (ctx) => {
    const files = trackedFiles()
    if (files === undefined) {
      if (process.env.SD_REQUIRE_ALL === '1') throw new Error('git ls-files failed in a checkout')
      ctx.skip('not a git checkout: cannot list tracked files')
      return
    }
    // Built from parts, so this file does not contain what it looks for.
    const forbidden = [['DESIGN', 'md'].join('.'), ['..', 'shared'].join('/')]
    const offenders: string[] = []
    for (const file of files) {
      if (file.startsWith('.ci/')) continue
      const path = join(root, file)
      if (!existsSync(path) || !statSync(path).isFile()) continue // deleted in the working tree
      const text = readFileSync(path, 'utf8')
      for (const needle of forbidden) {
        text.split('\n').forEach((line, i) => {
          if (line.includes(needle)) offenders.push(`${file}:${i + 1} mentions ${needle}`)
        })
      }
    }
    expect(files.length).toBeGreaterThan(10)
    expect(offenders).toEqual([])
  })

  it('every relative link of the READMEs (root, workspaces) and docs/ points at an existing file or heading', () => {
    const files = documentationFiles(root)
    expect(files).toContain('README.md')
    expect(files.some((f) => f.startsWith('docs'))).toBe(true)
    const broken: string[] = []
    let checked = 0
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8')
      for (const { target, line } of markdownLinks(text)) {
        if (isExternal(target)) continue
        checked++
        const [pathPart = '', anchor] = target.split('#')
        const path =
          pathPart === ''
            ? join(root, file)
            : resolve(dirname(join(root, file)), decodeURI(pathPart.split('?')[0]!))
        const where = `${file}:${line} -> ${target}`
        if (relative(root, path).startsWith('..')) broken.push(`${where} (leaves the repository)`)
        else if (!existsSync(path)) broken.push(`${where} (no such file)`)
        else if (
          anchor &&
          path.endsWith('.md') &&
          !headingAnchors(readFileSync(path, 'utf8')).has(anchor)
        )
          broken.push(`${where} (no such heading)`)
      }
    }
    expect(checked).toBeGreaterThan(10)
    expect(broken).toEqual([])
  })
})
