import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'

const hook = fileURLToPath(new URL('../hooks/sd-packages-from.mjs', import.meta.url))
const benchDir = fileURLToPath(new URL('..', import.meta.url))
const other = mkdtempSync(join(tmpdir(), 'sd-packages-from-'))
afterAll(() => rmSync(other, { recursive: true, force: true }))

// Another checkout's packages/: one package, @sd/transport, with a subpath export.
const pkg = join(other, 'transport')
mkdirSync(pkg)
writeFileSync(
  join(pkg, 'package.json'),
  JSON.stringify({
    name: '@sd/transport',
    type: 'module',
    exports: { '.': './main.js', './explore': './explore.js' },
  }),
)
writeFileSync(join(pkg, 'main.js'), "export const build = 'other checkout'\n")
writeFileSync(join(pkg, 'explore.js'), "export const build = 'other checkout, explore'\n")
mkdirSync(join(other, 'not-a-package'))

/** Runs `code` as an ES module (as the benchmarks are) with the hook and tsx, as bench:against does. */
function run(code: string, file = 'probe.mts') {
  const dir = mkdtempSync(join(tmpdir(), 'sd-probe-'))
  writeFileSync(join(dir, file), code)
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(dir, file)], {
    cwd: benchDir,
    encoding: 'utf8',
    env: {
      ...process.env,
      TSX_TSCONFIG_PATH: 'tsconfig.run.json', // as the benchmarks run: no mapping of @sd/* to sources
      SD_BENCH_PACKAGES: other,
      NODE_OPTIONS: `--import=${hook}`,
    },
  })
  rmSync(dir, { recursive: true, force: true })
  return result
}

describe('bench/hooks/sd-packages-from.mjs', () => {
  it("resolves @sd/* and their subpaths to the other checkout's packages, through their exports", () => {
    const r = run(
      "import { build } from '@sd/transport'\nimport { build as b2 } from '@sd/transport/explore'\nconsole.log(build + ' | ' + b2)\n",
    )
    expect(r.stderr).toBe('')
    expect(r.stdout.trim()).toBe('other checkout | other checkout, explore')
  })

  it('refuses a package the other checkout does not have, rather than mixing builds', () => {
    const r = run("import '@sd/mutex'\n")
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('@sd/mutex is not among the packages of')
  })

  it('leaves other specifiers alone', () => {
    const r = run("import { join } from 'node:path'\nconsole.log(join('a', 'b'))\n")
    expect(r.stdout.trim()).toBe('a/b')
  })
})
