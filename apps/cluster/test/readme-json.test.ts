/**
 * The documented `--json` forms give a file that is JSON alone: `pnpm cluster -- --json > file`
 * put pnpm's banner (`> sd-monorepo@ cluster ...`) in front of the summary, so every form in the
 * READMEs is `pnpm --silent cluster`, and one short run in that form is parsed from its file.
 */
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../../', import.meta.url))
const READMES = ['README.md', 'apps/cluster/README.md']

/** Command lines of the READMEs that run the cluster with --json. */
function jsonForms(): Array<{ file: string; line: string }> {
  const found: Array<{ file: string; line: string }> = []
  for (const file of READMES) {
    const text = readFileSync(join(root, file), 'utf8')
    // In code blocks and in inline code alike.
    for (const m of text.matchAll(/pnpm[^`\n]*\bcluster\b[^`\n]*--json[^`\n]*/g))
      found.push({ file, line: m[0] })
  }
  return found
}

let dir: string | undefined
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('the --json forms of the READMEs', () => {
  it('all run pnpm with --silent, so that the banner stays out of the file', () => {
    const forms = jsonForms()
    expect(forms.length).toBeGreaterThanOrEqual(3)
    for (const { file, line } of forms)
      expect(line, `${file}: ${line}`).toMatch(/^pnpm --silent cluster -- /)
  })

  it('`pnpm --silent cluster -- ... --json > file` writes a file that JSON.parse accepts', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sd-readme-json-'))
    const file = join(dir, 'summary.json')
    const out = openSync(file, 'w')
    const args = ['--silent', 'cluster', '--', '--n', '3', '--seconds', '5', '--loopback']
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('pnpm', [...args, '--chaos', 'kill-random', '--json'], {
        cwd: root,
        stdio: ['ignore', out, 'ignore'],
      })
      // A backstop far beyond the run: a hung command is killed, never left behind.
      const backstop = setTimeout(() => child.kill('SIGKILL'), 180_000)
      child.once('error', reject)
      child.once('exit', (c) => {
        clearTimeout(backstop)
        resolve(c)
      })
    })
    closeSync(out)
    const text = readFileSync(file, 'utf8')
    const summary = JSON.parse(text) as { nodes: number; seconds: number; ok: boolean }
    expect({ nodes: summary.nodes, seconds: summary.seconds }).toEqual({ nodes: 3, seconds: 5 })
    expect(code, text).toBe(summary.ok ? 0 : 1)
  }, 200_000)
})
