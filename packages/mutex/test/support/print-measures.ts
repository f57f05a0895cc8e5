/**
 * Prints the README table "Measured beside the theory" (`pnpm measures` in packages/mutex);
 * with --write, puts it in README.md between its markers instead.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { findReadmeBlock, readmeBlock, renderMeasuresTable } from './measures-table.js'

const table = renderMeasuresTable()
if (process.argv.includes('--write')) {
  const path = new URL('../../README.md', import.meta.url)
  const readme = readFileSync(path, 'utf8')
  const old = findReadmeBlock(readme)
  if (old === undefined) {
    console.error('README.md has no <!-- measures:start --> ... <!-- measures:end --> block')
    process.exit(1)
  }
  writeFileSync(
    path,
    readme.replace(old, () => readmeBlock(table)),
  )
  console.log(old === readmeBlock(table) ? 'README.md is up to date' : 'README.md updated')
} else {
  console.log(table)
}
