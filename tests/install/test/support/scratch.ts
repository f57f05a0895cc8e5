/**
 * Scratch npm projects as a user makes them (`npm init -y`, so "type": "commonjs"), and what the
 * tests read from them: the dependency tree npm reports, the installed size, and whether every
 * entry of a package loads both as an ES module and through require().
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanEnv, mustRun } from './commands.js'

const NPM_TIMEOUT_MS = 180_000

/** npm in `cwd`, with the npm cache of the run (`cache`) and no inherited npm_config_*. */
export function npm(cwd: string, cache: string, args: readonly string[]): Promise<string> {
  return mustRun('npm', [...args], {
    cwd,
    env: cleanEnv({ npm_config_cache: cache, npm_config_update_notifier: 'false' }),
    timeoutMs: NPM_TIMEOUT_MS,
  })
}

/** A folder with `npm init -y` run in it and `npmrc` as its .npmrc. */
export async function scratchProject(dir: string, cache: string, npmrc: string): Promise<string> {
  mkdirSync(dir, { recursive: true })
  await npm(dir, cache, ['init', '-y'])
  writeFileSync(join(dir, '.npmrc'), npmrc)
  return dir
}

export interface Tree {
  /** Every installed package of the tree, as name@version, sorted and deduplicated. */
  installed: string[]
  /** Optional peers npm reports as not installed (an empty entry in `npm ls --json`). */
  unmetOptional: string[]
  /** `npm ls --all` as printed. */
  text: string
}

interface LsNode {
  version?: string
  dependencies?: Record<string, LsNode>
}

/** What `npm ls --all` shows in `dir`. */
export async function dependencyTree(dir: string, cache: string): Promise<Tree> {
  const text = await npm(dir, cache, ['ls', '--all'])
  const json = JSON.parse(await npm(dir, cache, ['ls', '--all', '--json'])) as LsNode
  const installed = new Set<string>()
  const unmetOptional = new Set<string>()
  const walk = (node: LsNode) => {
    for (const [name, child] of Object.entries(node.dependencies ?? {})) {
      if (child.version === undefined) unmetOptional.add(name)
      else installed.add(`${name}@${child.version}`)
      walk(child)
    }
  }
  walk(json)
  return { installed: [...installed].sort(), unmetOptional: [...unmetOptional].sort(), text }
}

/** Installed size of a folder in KiB as du reports it (disk blocks). */
export async function diskKib(dir: string): Promise<number> {
  const out = await mustRun('du', ['-sk', dir], { cwd: dir, env: cleanEnv(), timeoutMs: 30_000 })
  return Number(out.split('\t')[0])
}

export type EntryResult = { ok: true; names: string[] } | { ok: false; error: string }

const LOADER = `
const specifiers = JSON.parse(process.argv[2])
const results = {}
for (const specifier of specifiers) {
  try {
    const mod = LOAD(specifier)
    results[specifier] = { ok: true, names: Object.keys(mod).filter((n) => n !== 'default' && n !== '__esModule').sort() }
  } catch (error) {
    results[specifier] = { ok: false, error: String(error && error.message ? error.message : error).split('\\n')[0] }
  }
}
console.log(JSON.stringify(results))
`

/**
 * Loads each specifier in a fresh node in `dir`, once with `import` (an .mjs file) and once with
 * `require` (a .cjs file), and returns what each exported or the first line of its error.
 */
export async function loadEntries(
  dir: string,
  specifiers: readonly string[],
): Promise<{ esm: Record<string, EntryResult>; cjs: Record<string, EntryResult> }> {
  const esmFile = join(dir, 'load-entries.mjs')
  const cjsFile = join(dir, 'load-entries.cjs')
  writeFileSync(esmFile, LOADER.replace('const mod = LOAD(', 'const mod = await import('))
  writeFileSync(cjsFile, `;(async () => {${LOADER.replace('LOAD(', 'require(')}})()`)
  const run = async (file: string) =>
    JSON.parse(
      await mustRun(process.execPath, [file, JSON.stringify(specifiers)], {
        cwd: dir,
        env: cleanEnv(),
        timeoutMs: 60_000,
      }),
    ) as Record<string, EntryResult>
  return { esm: await run(esmFile), cjs: await run(cjsFile) }
}

/** The subpaths a package's manifest exports, "./package.json" aside. */
export function exportedSubpaths(packageDir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    exports?: Record<string, unknown>
  }
  return Object.keys(manifest.exports ?? {})
    .filter((key) => key !== './package.json')
    .sort()
}
