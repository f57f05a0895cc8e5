// The source file behind each public entry point of the packages, read from their package.json
// `exports`: `@sd/transport/testing` exports ./dist/testing.js, which tsup builds from
// src/testing/index.ts (or src/testing.ts). Tests (vitest aliases) and the typecheck (tsconfig
// paths) import @sd/* from these sources, so no build is needed first; both lists come from here.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** `{ specifier, source }` for every export of every package, source relative to `root`. */
export function packageEntries(root) {
  const entries = []
  const dirs = readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, 'packages', d.name, 'package.json')))
    .map((d) => d.name)
    .sort()
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'))
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      if (subpath === './package.json') continue
      const built = typeof target === 'string' ? target : target?.import?.default
      const name = /^\.\/dist\/(.+)\.js$/.exec(built ?? '')?.[1]
      if (name === undefined)
        throw new Error(`${manifest.name} exports ${subpath} as ${built}: not ./dist/<name>.js`)
      const candidates = [`src/${name}.ts`, `src/${name}/index.ts`].filter((f) =>
        existsSync(join(root, 'packages', dir, f)),
      )
      if (candidates.length !== 1)
        throw new Error(
          `${manifest.name} exports ${subpath}: expected one of src/${name}.ts, src/${name}/index.ts, found ${candidates.length}`,
        )
      entries.push({
        specifier: manifest.name + subpath.slice(1),
        source: `packages/${dir}/${candidates[0]}`,
      })
    }
  }
  return entries
}

/** The tsconfig `paths` the entries give: each specifier to its one source file. */
export function tsconfigPaths(root) {
  return Object.fromEntries(packageEntries(root).map((e) => [e.specifier, [e.source]]))
}
