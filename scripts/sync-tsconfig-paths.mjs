#!/usr/bin/env node
// Writes the root tsconfig.json's `paths` from the packages' package.json `exports` (see
// package-exports.mjs): a JSON file cannot compute them, so they are generated, and
// check-tsconfig-paths.mjs fails `pnpm lint` when they drift. Comments elsewhere in the file stay.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { tsconfigPaths } from './package-exports.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const file = `${root}tsconfig.json`

/** The `"paths": { ... }` block, formatted as biome formats it (four spaces in compilerOptions). */
export function pathsBlock(paths) {
  const lines = Object.entries(paths).map(
    ([specifier, sources]) =>
      `      ${JSON.stringify(specifier)}: [${sources.map((s) => JSON.stringify(s)).join(', ')}]`,
  )
  return `"paths": {\n${lines.join(',\n')}\n    }`
}

/** tsconfig.json's text with its `paths` block replaced by `paths`. */
export function withPaths(text, paths) {
  const block = /"paths": \{[^}]*\}/
  if (!block.test(text)) throw new Error('tsconfig.json has no "paths": { ... } block to replace')
  return text.replace(block, pathsBlock(paths))
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = readFileSync(file, 'utf8')
  const next = withPaths(text, tsconfigPaths(root))
  if (next === text) console.log('tsconfig.json paths already match the packages exports')
  else {
    writeFileSync(file, next)
    console.log('tsconfig.json paths rewritten from the packages exports')
  }
}
