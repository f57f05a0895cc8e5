#!/usr/bin/env node
// What a maintainer does to release the packages under packages/, as one command:
//   1. version: when changesets are pending, `changeset version` (versions, CHANGELOGs);
//   2. build and lint every package (tsup, publint, attw) through turbo;
//   3. publish with `changeset publish` to the registry npm is configured for, or, with
//      --pack-to DIR, write one tarball per package to DIR instead (install without a registry).
// Usage: pnpm release [--pack-to DIR] [--no-version] [--no-git-tag]
//   --no-version  publish or pack the versions as they are, even with changesets pending
//   --no-git-tag  do not tag the published versions in git (a throwaway registry, a test)
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const bin = (name) => join(root, 'node_modules', '.bin', name)
const options = parseArgs(process.argv.slice(2))

const pending = readdirSync(join(root, '.changeset')).filter(
  (name) => name.endsWith('.md') && name !== 'README.md',
)
if (pending.length > 0 && options.version) {
  step(`version: ${pending.length} pending changesets`)
  run(bin('changeset'), ['version'])
  console.log('versions and CHANGELOGs updated: commit them with the release')
} else if (pending.length > 0) {
  console.log(`${pending.length} changesets pending, left as they are (--no-version)`)
}

step('build and lint (tsup, publint, attw)')
run(bin('turbo'), [
  'run',
  'build',
  'lint',
  '--filter=./packages/*',
  '--output-logs=errors-only',
  '--log-order=grouped',
])

const packages = publicPackages()
if (options.packTo) {
  const dir = resolve(options.packTo)
  mkdirSync(dir, { recursive: true })
  step(`pack ${packages.length} packages to ${dir}`)
  for (const { dir: packageDir, name, version } of packages) {
    // pnpm pack turns workspace:^ into ^<version>, as publishing does.
    runPnpm(['pack', '--pack-destination', dir], packageDir, 'ignore')
    const file = `${name.replace('@', '').replace('/', '-')}-${version}.tgz`
    if (!existsSync(join(dir, file))) fail(`pnpm pack did not write ${file} in ${dir}`)
    console.log(`  ${file}  ${statSync(join(dir, file)).size} bytes`)
  }
} else {
  // changeset publish takes the registry from npm_config_registry only (else the public default),
  // so hand it the one npm is configured for (.npmrc, user config, environment).
  const env = { ...process.env }
  const registry = npmConfig('registry')
  const scoped = npmConfig('@sd:registry')
  if (registry) env.npm_config_registry = registry
  if (scoped) env['npm_config_@sd:registry'] = scoped
  step(`publish ${packages.length} packages to ${scoped ?? registry}`)
  run(bin('changeset'), ['publish', ...(options.gitTag ? [] : ['--no-git-tag'])], env)
}

function parseArgs(args) {
  const parsed = { packTo: undefined, version: true, gitTag: true }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === '--pack-to') {
      parsed.packTo = args[++i]
      if (!parsed.packTo) fail('--pack-to needs a directory')
    } else if (arg.startsWith('--pack-to=')) parsed.packTo = arg.slice('--pack-to='.length)
    else if (arg === '--no-version') parsed.version = false
    else if (arg === '--no-git-tag') parsed.gitTag = false
    else if (arg === '--') continue
    else
      fail(
        `unknown option ${arg}\nusage: pnpm release [--pack-to DIR] [--no-version] [--no-git-tag]`,
      )
  }
  return parsed
}

function publicPackages() {
  const dir = join(root, 'packages')
  return readdirSync(dir)
    .map((name) => join(dir, name))
    .filter((packageDir) => existsSync(join(packageDir, 'package.json')))
    .map((packageDir) => ({
      dir: packageDir,
      ...JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')),
    }))
    .filter((pkg) => !pkg.private)
}

/** A value of npm's configuration, or undefined when it is not set. */
function npmConfig(key) {
  const value = execFileSync('npm', ['config', 'get', key], { cwd: root, encoding: 'utf8' }).trim()
  return value === '' || value === 'undefined' || value === 'null' ? undefined : value
}

function run(command, args, env = process.env) {
  try {
    execFileSync(command, args, { cwd: root, stdio: 'inherit', env })
  } catch {
    fail(`${basename(command)} ${args.join(' ')} failed`)
  }
}

/** pnpm from PATH (changeset publish calls it too). */
function runPnpm(args, cwd, stdout) {
  try {
    execFileSync('pnpm', args, { cwd, stdio: ['ignore', stdout, 'inherit'] })
  } catch {
    fail(`pnpm ${args.join(' ')} failed in ${cwd}`)
  }
}

function step(what) {
  console.log(`\nrelease: ${what}`)
}

function fail(message) {
  console.error(`release: ${message}`)
  process.exit(1)
}
