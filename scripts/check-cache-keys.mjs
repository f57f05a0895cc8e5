#!/usr/bin/env node
// Proves turbo's cache keys follow the workspace graph: on a scratch copy of the repository, edits
// one source file of each workspace and asks turbo (dry run, nothing executes) for the task hashes.
// Every task of the edited workspace and of each workspace that depends on it, even through
// devDependencies, must get a new hash (else turbo would replay a stale result: a cached green
// typecheck of code that no longer compiles); every other workspace must keep its hashes.
import { execFileSync } from 'node:child_process'
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const TASKS = ['build', 'typecheck', 'lint', 'test']
const root = new URL('..', import.meta.url).pathname
const turbo = join(root, 'node_modules', '.bin', 'turbo')
const scratch = mkdtempSync(join(tmpdir(), 'sd-cache-keys-'))
const problems = []

try {
  copyWorkingTree(scratch)
  const baseline = taskHashes()
  const workspaces = listWorkspaces(baseline)
  for (const [name, dir] of workspaces) {
    const file = firstSourceFile(join(scratch, dir, 'src'))
    if (!file) continue
    const original = readFileSync(file)
    appendFileSync(file, '\n// cache-key probe\n')
    const after = taskHashes()
    writeFileSync(file, original)
    const affected = dependentsOf(name, workspaces)
    for (const [task, hash] of baseline) {
      const owner = task.split('#')[0]
      const changed = after.get(task) !== hash
      if (affected.has(owner) && !changed)
        problems.push(
          `editing ${name} keeps the hash of ${task}: a cache hit would replay a stale result`,
        )
      if (!affected.has(owner) && changed)
        problems.push(`editing ${name} invalidates ${task}, which does not depend on it`)
    }
  }
  if (problems.length > 0) {
    console.error(
      `cache keys out of step with the workspace graph:\n  - ${problems.join('\n  - ')}`,
    )
    process.exitCode = 1
  } else console.log(`cache keys: ok (${workspaces.size} workspaces, ${baseline.size} tasks)`)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

/** The repository as it is now (committed or not, ignored files left out), minus installs. */
function copyWorkingTree(to) {
  const files = execFileSync('git', ['ls-files', '-z', '-co', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  })
  for (const file of files.split('\0').filter(Boolean)) {
    if (existsSync(join(root, file))) cpSync(join(root, file), join(to, file), { recursive: true })
  }
  symlinkSync(join(root, 'node_modules'), join(to, 'node_modules'))
}

/** taskId -> hash for the tasks of TASKS that a workspace defines a script for. */
function taskHashes() {
  const out = execFileSync(turbo, ['run', ...TASKS, '--dry-run=json'], {
    cwd: scratch,
    encoding: 'utf8',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', TURBO_NO_UPDATE_NOTIFIER: '1' },
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const hashes = new Map()
  for (const task of JSON.parse(out).tasks) {
    if (TASKS.includes(task.task) && task.command !== '<NONEXISTENT>')
      hashes.set(task.taskId, task.hash)
  }
  return hashes
}

/** name -> directory of every workspace that owns at least one task. */
function listWorkspaces(hashes) {
  const owners = new Set([...hashes.keys()].map((task) => task.split('#')[0]))
  const found = new Map()
  for (const parent of ['packages', 'apps', 'tests', 'bench']) {
    if (!existsSync(join(scratch, parent))) continue
    const dirs =
      parent === 'bench'
        ? ['bench']
        : readdirSync(join(scratch, parent)).map((d) => join(parent, d))
    for (const dir of dirs) {
      const manifest = join(scratch, dir, 'package.json')
      if (!existsSync(manifest)) continue
      const { name } = JSON.parse(readFileSync(manifest, 'utf8'))
      if (owners.has(name)) found.set(name, dir)
    }
  }
  return found
}

/** `name` and every workspace that depends on it, directly or not, through any dependency field. */
function dependentsOf(name, workspaces) {
  const manifests = [...workspaces].map(([pkg, dir]) => {
    const json = JSON.parse(readFileSync(join(scratch, dir, 'package.json'), 'utf8'))
    const deps = Object.keys({
      ...json.dependencies,
      ...json.devDependencies,
      ...json.peerDependencies,
    })
    return { pkg, deps }
  })
  const affected = new Set([name])
  // Each pass adds at least one workspace or ends, so at most one pass per workspace.
  for (let pass = 0; pass < manifests.length; pass++) {
    const before = affected.size
    for (const { pkg, deps } of manifests) if (deps.some((d) => affected.has(d))) affected.add(pkg)
    if (affected.size === before) break
  }
  return affected
}

function firstSourceFile(dir) {
  if (!existsSync(dir)) return undefined
  const index = join(dir, 'index.ts')
  if (existsSync(index)) return index
  const ts = readdirSync(dir).find((f) => f.endsWith('.ts'))
  return ts ? join(dir, ts) : undefined
}
