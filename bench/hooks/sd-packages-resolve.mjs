/**
 * The resolve hook behind sd-packages-from.mjs. `@sd/x/sub` is resolved as if imported from inside
 * the other checkout's package `@sd/x` (a package may import itself by name), so its own `exports`
 * map decides the file, as it would for a user. A package the other checkout does not have is an
 * error, not a silent fall back to this checkout's build: a mixed measurement would mislead.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** Package name -> URL of its package.json in the other checkout. */
const manifests = new Map()
let from = ''

export function initialize({ packagesDir }) {
  from = packagesDir
  for (const dir of readdirSync(packagesDir)) {
    const manifest = join(packagesDir, dir, 'package.json')
    if (!existsSync(manifest)) continue
    const { name } = JSON.parse(readFileSync(manifest, 'utf8'))
    if (typeof name === 'string') manifests.set(name, pathToFileURL(manifest).href)
  }
}

export async function resolve(specifier, context, next) {
  if (!specifier.startsWith('@sd/')) return next(specifier, context)
  const name = specifier.split('/').slice(0, 2).join('/')
  const parentURL = manifests.get(name)
  if (parentURL === undefined) {
    throw new Error(`${name} is not among the packages of ${from} (SD_BENCH_PACKAGES)`)
  }
  return next(specifier, { ...context, parentURL })
}
