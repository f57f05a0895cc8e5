#!/usr/bin/env node
// Every TypeScript file of the repository (tracked or new, outside node_modules and dist) must be
// included by a tsconfig that a typecheck task runs (`tsc -p <file>` in a workspace's `typecheck`
// script, or the root's `typecheck:repo`): a file no such tsconfig includes is never type-checked,
// and its type errors pass CI unseen. Reads the tsconfigs' include/exclude only; checks no types.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** The tsconfig files the typecheck tasks run, from the scripts of every package.json. */
function checkedTsconfigs() {
  const manifests = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((f) => f === 'package.json' || f.endsWith('/package.json'))
  const configs = []
  for (const manifest of manifests) {
    const scripts = JSON.parse(readFileSync(join(root, manifest), 'utf8')).scripts ?? {}
    for (const [name, command] of Object.entries(scripts)) {
      if (!name.startsWith('typecheck')) continue
      for (const [, project] of command.matchAll(/\btsc\b[^&|;]*?(?:-p|--project)\s+(\S+)/g))
        configs.push(join(root, dirname(manifest), project))
    }
  }
  return configs
}

function filesOf(config) {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    config,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic(d) {
        throw new Error(`${config}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
      },
    },
  )
  return parsed.fileNames.map((f) => relative(root, f))
}

const covered = new Set()
const configs = checkedTsconfigs()
for (const config of configs) for (const file of filesOf(config)) covered.add(file)

const sources = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => /\.(c|m)?tsx?$/.test(f))
  .filter((f) => !/(^|\/)(node_modules|dist)\//.test(f))

const orphans = sources.filter((f) => !covered.has(f))
if (orphans.length > 0) {
  console.error(
    `${orphans.length} TypeScript file(s) belong to no type-checked tsconfig (${configs.length} checked: ${configs.map((c) => relative(root, c)).join(', ')}):`,
  )
  for (const f of orphans) console.error(`  ${f}`)
  console.error('Add each to the include of its workspace tsconfig.json (or the root one).')
  process.exit(1)
}
console.log(`every one of ${sources.length} TypeScript files belongs to a type-checked tsconfig`)
