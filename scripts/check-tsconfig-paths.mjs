#!/usr/bin/env node
// The root tsconfig.json's `paths` must be what the packages' package.json `exports` give
// (package-exports.mjs): a new export without its path would typecheck against a stale or missing
// file, or not at all. Fix a failure with `node scripts/sync-tsconfig-paths.mjs`.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { tsconfigPaths } from './package-exports.mjs'
import { withPaths } from './sync-tsconfig-paths.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const text = readFileSync(`${root}tsconfig.json`, 'utf8')
const expected = tsconfigPaths(root)
if (withPaths(text, expected) !== text) {
  console.error('tsconfig.json "paths" differ from the packages exports; expected:')
  for (const [specifier, [source]] of Object.entries(expected))
    console.error(`  ${specifier} -> ${source}`)
  console.error('Run `node scripts/sync-tsconfig-paths.mjs` to rewrite them.')
  process.exit(1)
}
console.log(`tsconfig.json paths match the ${Object.keys(expected).length} package exports`)
