#!/usr/bin/env node
// The workspace dependency rules, checked against package.json files and the imports files make:
//   1. a package's runtime sources use only the @sd packages it may depend on (RUNTIME_RULES),
//      declared in dependencies;
//   2. every other file of every workspace (tests, examples, scripts, the apps, the bench) declares
//      each @sd package it imports, in dependencies or devDependencies. Tests, tsconfig paths and
//      vitest aliases reach sibling sources without a declaration, but turbo builds its task graph
//      and cache keys from package.json only: an undeclared import is a stale cache hit waiting;
//   3. @sd dependencies are `workspace:*`, except a library's runtime ones, `workspace:^` (published
//      as ^x.y.z, a range a registry resolves and a later minor still satisfies); no package depends on an app or the bench, and the
//      workspace graph (devDependencies included) has no cycle, which turbo would refuse;
//   4. a relative import that leaves its workspace lands in a root file turbo.json lists in
//      globalDependencies (shared configs, test-support/), never in another workspace.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const RUNTIME_RULES = {
  '@sd/transport': [],
  '@sd/clocks': [],
  '@sd/timesync': ['@sd/transport'],
  '@sd/election': ['@sd/transport'],
  '@sd/deadlock': ['@sd/transport'],
  '@sd/mutex': ['@sd/transport', '@sd/clocks'],
}
const RUNTIME_FIELDS = ['dependencies', 'peerDependencies', 'optionalDependencies']
const SOURCE_FILE = /\.(?:[cm]?ts|tsx|[cm]?js)$/
const TEST_ONLY = /\.(?:test|bench)\.[cm]?ts$|\/test-support\//
const IMPORT = /(?:\bfrom|\bimport|\brequire\s*\()\s*\(?\s*['"](@sd\/[a-z0-9-]+)(?:\/[^'"]*)?['"]/g
const RELATIVE_IMPORT = /(?:\bfrom|\bimport|\brequire\s*\()\s*\(?\s*['"](\.{1,2}\/[^'"]*)['"]/g

const root = new URL('..', import.meta.url).pathname
const problems = []
const workspaces = listWorkspaces()
const byName = new Map(workspaces.map((w) => [w.pkg.name, w]))
const globalInputs = turboGlobalDependencies()
let filesChecked = 0

for (const { dir, pkg } of workspaces) {
  const isLibrary = dir.startsWith('packages/')
  const allowed = RUNTIME_RULES[pkg.name]
  if (isLibrary && !allowed) {
    problems.push(`${pkg.name} (${dir}) has no entry in RUNTIME_RULES of scripts/check-deps.mjs`)
    continue
  }
  const runtimeDeps = sdNames(RUNTIME_FIELDS.map((field) => pkg[field]))
  const allDeps = sdNames([...RUNTIME_FIELDS.map((field) => pkg[field]), pkg.devDependencies])

  for (const field of [...RUNTIME_FIELDS, 'devDependencies']) {
    for (const [dep, spec] of Object.entries(pkg[field] ?? {})) {
      if (!dep.startsWith('@sd/')) continue
      const target = byName.get(dep)
      if (!target) problems.push(`${pkg.name}: ${field} names ${dep}, which is no workspace`)
      else if (spec !== expectedSpec(isLibrary, field))
        problems.push(
          `${pkg.name}: ${field} ${dep} is "${spec}", expected "${expectedSpec(isLibrary, field)}"`,
        )
      if (isLibrary && target && !target.dir.startsWith('packages/'))
        problems.push(`${pkg.name} must not depend on ${dep} (an app or the bench)`)
      if (isLibrary && RUNTIME_FIELDS.includes(field) && !allowed.includes(dep))
        problems.push(`${pkg.name} must not depend on ${dep} (${describe(allowed)})`)
    }
  }

  for (const file of sourceFiles(join(root, dir))) {
    filesChecked++
    const path = relative(root, file)
    const runtime = isLibrary && path.startsWith(`${dir}/src/`) && !TEST_ONLY.test(path)
    const text = readFileSync(file, 'utf8')
    for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
      const target = relative(root, resolve(dirname(file), specifier))
      if (target === dir || target.startsWith(`${dir}/`)) continue
      const owner = workspaces.find((w) => target === w.dir || target.startsWith(`${w.dir}/`))
      if (owner)
        problems.push(
          `${path} imports '${specifier}' from ${owner.pkg.name} by path; import the package`,
        )
      else if (!globalInputs.some((input) => covers(input, target)))
        problems.push(
          `${path} imports '${specifier}' from outside its workspace; add ${target} (or its folder, as dir/**) to turbo.json globalDependencies`,
        )
    }
    for (const [, dep] of text.matchAll(IMPORT)) {
      if (dep === pkg.name) continue
      if (!byName.has(dep)) problems.push(`${path} imports ${dep}, which is no workspace`)
      else if (runtime && !allowed.includes(dep))
        problems.push(
          `${path} imports ${dep}, which ${pkg.name} may not use (${describe(allowed)})`,
        )
      else if (runtime && !runtimeDeps.has(dep))
        problems.push(`${path} imports ${dep}, missing from ${pkg.name}'s dependencies`)
      else if (!allDeps.has(dep))
        problems.push(
          `${path} imports ${dep}, missing from ${dir}/package.json (add "${dep}": "workspace:*" to devDependencies)`,
        )
    }
  }
}

const cycle = findCycle()
if (cycle) problems.push(`workspace dependency cycle: ${cycle.join(' -> ')}`)

if (problems.length > 0) {
  const unique = [...new Set(problems)]
  console.error(`dependency rules broken:\n${unique.map((p) => `  - ${p}`).join('\n')}`)
  process.exit(1)
}
console.log(`dependency rules: ok (${workspaces.length} workspaces, ${filesChecked} files)`)

function describe(allowed) {
  return `allowed: ${allowed.join(', ') || 'nothing of ours'}`
}

/** turbo.json's globalDependencies (turbo.json has whole-line // comments). */
function turboGlobalDependencies() {
  const text = readFileSync(join(root, 'turbo.json'), 'utf8').replace(/^\s*\/\/.*$/gm, '')
  return JSON.parse(text).globalDependencies ?? []
}

/** Whether a globalDependencies entry (a file, or `dir/**`) covers a repository path. */
function covers(input, path) {
  if (input.endsWith('/**')) return path.startsWith(input.slice(0, -2))
  return path === input
}

function sdNames(maps) {
  return new Set(maps.flatMap((m) => Object.keys(m ?? {})).filter((d) => d.startsWith('@sd/')))
}

/** The workspaces of pnpm-workspace.yaml; its entries are `dir` or `dir/*`. */
function listWorkspaces() {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')
  const section = yaml.split(/^packages:\s*$/m)[1]?.split(/^\S/m)[0] ?? ''
  const patterns = [...section.matchAll(/^\s+-\s+['"]?([^'"\s]+)['"]?\s*$/gm)].map((m) => m[1])
  const dirs = patterns.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern]
    const parent = pattern.slice(0, -2)
    return readdirSync(join(root, parent)).map((name) => `${parent}/${name}`)
  })
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) }))
}

/** Every source file below `dir`, skipping installed, built and hidden (generated) folders. */
function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* sourceFiles(path)
    else if (SOURCE_FILE.test(name) && !name.endsWith('.d.ts')) yield path
  }
}

/** A cycle among workspaces through any dependency field, as a list of names, or undefined. */
function findCycle() {
  const state = new Map() // name -> 'visiting' | 'done'
  const stack = []
  const visit = (name) => {
    if (state.get(name) === 'done') return undefined
    if (state.get(name) === 'visiting') return [...stack.slice(stack.indexOf(name)), name]
    state.set(name, 'visiting')
    stack.push(name)
    const { pkg } = byName.get(name)
    const deps = sdNames([...RUNTIME_FIELDS.map((f) => pkg[f]), pkg.devDependencies])
    for (const dep of deps) {
      if (!byName.has(dep)) continue
      const found = visit(dep)
      if (found) return found
    }
    stack.pop()
    state.set(name, 'done')
    return undefined
  }
  for (const name of byName.keys()) {
    const found = visit(name)
    if (found) return found
  }
  return undefined
}

function expectedSpec(isLibrary, field) {
  return isLibrary && RUNTIME_FIELDS.includes(field) ? 'workspace:^' : 'workspace:*'
}
