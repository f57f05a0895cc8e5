/**
 * The release as a user meets it. `pnpm release` publishes the six packages to a local verdaccio
 * (loopback, temporary storage, no uplinks); each package is then installed alone from it into a
 * scratch `npm init -y` project, whose .npmrc sends only the @sd scope there. Then the tarballs of
 * `pnpm release:pack` are installed with no registry at all.
 * Skips with a notice when verdaccio cannot be installed or started, fails then under
 * SD_REQUIRE_ALL=1.
 */
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkReadmeExamples } from '../../../test-support/readme-in-project.js'
import { bareTypeErrors } from './support/bare-types.js'
import { cleanEnv, mustRun } from './support/commands.js'
import {
  dependencyTree,
  diskKib,
  exportedSubpaths,
  loadEntries,
  npm,
  scratchProject,
  type Tree,
} from './support/scratch.js'
import { type Registry, startVerdaccio, stopVerdaccio, verdaccioBin } from './support/verdaccio.js'

const repo = fileURLToPath(new URL('../../../', import.meta.url))
const RELEASE_TIMEOUT_MS = 8 * 60_000

/** Each package, the @sd packages it must pull in (no more), and the entries it exports. */
const PACKAGES: Record<string, { needs: string[]; entries: string[] }> = {
  '@sd/transport': {
    needs: [],
    entries: ['.', './explore', './history', './storage-file', './testing', './udp'],
  },
  '@sd/clocks': { needs: [], entries: ['.'] },
  '@sd/timesync': { needs: ['@sd/transport'], entries: ['.', './udp'] },
  '@sd/election': { needs: ['@sd/transport'], entries: ['.'] },
  '@sd/deadlock': { needs: ['@sd/transport'], entries: ['.'] },
  '@sd/mutex': { needs: ['@sd/clocks', '@sd/transport'], entries: ['.'] },
}

/**
 * Entries whose require() cannot work whatever the package does: `@sd/transport/testing` is a
 * vitest suite, and vitest refuses to be loaded by require(). Its import must work.
 */
const REQUIRE_REFUSED_BY_DEPENDENCY: Record<string, RegExp> = {
  '@sd/transport/testing': /Vitest cannot be imported in a CommonJS module/,
}

const versionOf = (name: string) =>
  (
    JSON.parse(
      readFileSync(join(repo, 'packages', name.slice('@sd/'.length), 'package.json'), 'utf8'),
    ) as { version: string }
  ).version

interface Figures {
  kib: number
  packedBytes?: number
  tree: Tree
}

const work = mkdtempSync(join(tmpdir(), 'sd-install-'))
const npmCache = join(work, 'npm-cache')
const figures = new Map<string, Figures>()
let registry: Registry | undefined
let skipWhy: string | undefined

beforeAll(async () => {
  const bin = verdaccioBin()
  if (!bin) skipWhy = 'verdaccio is not installed (pnpm install --frozen-lockfile installs it)'
  else {
    try {
      const dir = join(work, 'registry')
      mkdirSync(dir)
      registry = await startVerdaccio(bin, dir)
    } catch (error) {
      skipWhy = `verdaccio did not start: ${(error as Error).message}`
    }
  }
  if (skipWhy && process.env.SD_REQUIRE_ALL === '1')
    throw new Error(`the registry test cannot run (${skipWhy}) and SD_REQUIRE_ALL=1`)
  if (skipWhy) {
    console.warn(`skipping the registry install tests: ${skipWhy}`)
    return
  }
  // The release command as a maintainer runs it, with npm configured for the local registry (a
  // placeholder token: verdaccio lets anyone publish here). No version step, no git tags: the
  // test must leave the working tree as it found it.
  const userconfig = join(work, 'publisher.npmrc')
  const host = registry!.url.slice('http:'.length)
  writeFileSync(userconfig, `registry=${registry!.url}/\n${host}/:_authToken="placeholder"\n`)
  await mustRun('pnpm', ['release', '--no-version', '--no-git-tag'], {
    cwd: repo,
    env: cleanEnv({ npm_config_userconfig: userconfig }),
    timeoutMs: RELEASE_TIMEOUT_MS,
  })
}, RELEASE_TIMEOUT_MS + 60_000)

afterAll(async () => {
  if (registry) await stopVerdaccio(registry)
  rmSync(work, { recursive: true, force: true })
  if (figures.size > 0) console.log(report())
})

describe('installed alone from a registry', () => {
  it.for(Object.keys(PACKAGES))('%s', async (name, { skip }) => {
    if (skipWhy) return skip(skipWhy)
    const { needs, entries } = PACKAGES[name]!
    const project = await scratchProject(
      join(work, name.slice('@sd/'.length)),
      npmCache,
      `@sd:registry=${registry!.url}/\n`,
    )
    await npm(project, npmCache, ['install', name, '--no-audit', '--no-fund'])

    const tree = await dependencyTree(project, npmCache)
    const version = versionOf(name)
    expect(tree.installed, `npm ls --all for ${name}:\n${tree.text}`).toEqual(
      [name, ...needs].sort().map((dep) => `${dep}@${versionOf(dep)}`),
    )
    const packageDir = join(project, 'node_modules', name)
    figures.set(name, { kib: await diskKib(packageDir), tree })
    expect(exportedSubpaths(packageDir), `${name}@${version} exports`).toEqual(entries)
    // The published manifest: ranges a registry resolves, no workspace: protocol left.
    const manifest = readFileSync(join(packageDir, 'package.json'), 'utf8')
    expect(manifest, `${name}@${version} package.json`).not.toContain('workspace:')
    expect((JSON.parse(manifest) as { dependencies?: object }).dependencies ?? {}).toEqual(
      Object.fromEntries(needs.map((dep) => [dep, `^${versionOf(dep)}`])),
    )

    // Before vitest is linked: the main entry's declarations need neither DOM nor Node types.
    expect(await bareTypeErrors(project, name), `${name} with lib es2022 and types []`).toBe('')

    if (name === '@sd/transport') linkVitest(project)
    await expectEntriesLoad(project, name, entries)

    // Every TypeScript example of the README the package ships, run and type-checked (strict,
    // NodeNext and bundler) in this project against the installed package.
    const failures = await checkReadmeExamples({
      projectDir: project,
      readmePath: join(packageDir, 'README.md'),
    })
    expect(failures, `${name} README examples:\n${failures.join('\n\n')}`).toEqual([])
  })
})

describe('installed from tarballs, without a registry', () => {
  it('pnpm release:pack writes one tarball per package; mutex, transport and clocks install from theirs', async () => {
    const packDir = join(work, 'pack')
    await mustRun('pnpm', ['release:pack', packDir], {
      cwd: repo,
      env: cleanEnv(),
      timeoutMs: RELEASE_TIMEOUT_MS,
    })
    const tarball = (name: string) => `${name.slice(1).replace('/', '-')}-${versionOf(name)}.tgz`
    for (const name of Object.keys(PACKAGES)) {
      const bytes = readFileSync(join(packDir, tarball(name))).length
      const entry = figures.get(name)
      if (entry) entry.packedBytes = bytes
    }

    // The @sd scope points at a port where nothing listens, and npm does not retry: the install
    // must come from the tarballs alone.
    const project = await scratchProject(
      join(work, 'from-tarballs'),
      npmCache,
      '@sd:registry=http://127.0.0.1:9/\nfetch-retries=0\n',
    )
    const names = ['@sd/mutex', '@sd/transport', '@sd/clocks']
    for (const name of names) cpSync(join(packDir, tarball(name)), join(project, tarball(name)))
    await npm(project, npmCache, [
      'install',
      ...names.map((name) => `./${tarball(name)}`),
      '--no-audit',
      '--no-fund',
    ])
    const tree = await dependencyTree(project, npmCache)
    expect(tree.installed, tree.text).toEqual(
      [...names].sort().map((name) => `${name}@${versionOf(name)}`),
    )
    await expectEntriesLoad(project, '@sd/mutex', ['.'])
    await expectEntriesLoad(project, '@sd/clocks', ['.'])
    await expectEntriesLoad(project, '@sd/transport', [
      '.',
      './explore',
      './history',
      './storage-file',
      './udp',
    ])
  })
})

/** Every entry imports and requires, with the same export names both ways. */
async function expectEntriesLoad(project: string, name: string, entries: readonly string[]) {
  const specifiers = entries.map((entry) => (entry === '.' ? name : `${name}${entry.slice(1)}`))
  const { esm, cjs } = await loadEntries(project, specifiers)
  for (const specifier of specifiers) {
    const imported = esm[specifier]!
    expect(imported, `import('${specifier}')`).toMatchObject({ ok: true })
    if (!imported.ok) continue
    expect(imported.names.length, `import('${specifier}') exports nothing`).toBeGreaterThan(0)
    const required = cjs[specifier]!
    const refusal = REQUIRE_REFUSED_BY_DEPENDENCY[specifier]
    if (refusal && !required.ok) {
      expect(required.error, `require('${specifier}')`).toMatch(refusal)
      console.warn(`note: require('${specifier}') fails as expected: ${required.error}`)
      continue
    }
    expect(required, `require('${specifier}')`).toMatchObject({ ok: true })
    if (required.ok) expect(required.names, `require('${specifier}')`).toEqual(imported.names)
  }
}

/**
 * @sd/transport/testing imports vitest, an optional peer: the repository's vitest, linked as a
 * user's own would be installed (after `npm ls` recorded the tree without it).
 */
function linkVitest(project: string) {
  const vitest = realpathSync(
    dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  )
  symlinkSync(vitest, join(project, 'node_modules', 'vitest'), 'dir')
}

function report(): string {
  const lines = ['', 'installed from the registry, per package (issue 21 figures):']
  for (const [name, { kib, packedBytes, tree }] of figures) {
    const packed =
      packedBytes === undefined ? '' : `, tarball ${Math.round(packedBytes / 1024)} KiB`
    lines.push(`  ${name}: node_modules/${name} ${kib} KiB on disk${packed}`)
    const optional = tree.unmetOptional.map((peer) => `${peer} (optional peer, not installed)`)
    lines.push(`    npm ls --all: ${[...tree.installed, ...optional].join(', ')}`)
  }
  return lines.join('\n')
}
