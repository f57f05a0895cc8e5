#!/usr/bin/env node
// Enforces the package dependency DAG of DESIGN.md section 2: what each @sd package may depend on,
// checked both in package.json and in the imports its sources actually make.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ALLOWED = {
  '@sd/transport': [],
  '@sd/clocks': [],
  '@sd/timesync': ['@sd/transport'],
  '@sd/election': ['@sd/transport'],
  '@sd/deadlock': ['@sd/transport'],
  '@sd/mutex': ['@sd/transport', '@sd/clocks'],
}

const root = new URL('..', import.meta.url).pathname
const problems = []

for (const dir of readdirSync(join(root, 'packages'))) {
  const pkgPath = join(root, 'packages', dir, 'package.json')
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8'))
  const allowed = ALLOWED[pkg.name]
  if (!allowed) {
    problems.push(
      `${pkgPath}: ${pkg.name} is not in the dependency rules of scripts/check-deps.mjs`,
    )
    continue
  }
  const declared = Object.keys({
    ...pkg.dependencies,
    ...pkg.peerDependencies,
    ...pkg.optionalDependencies,
  })
  for (const dep of declared.filter((d) => d.startsWith('@sd/'))) {
    if (!allowed.includes(dep))
      problems.push(
        `${pkg.name} must not depend on ${dep} (allowed: ${allowed.join(', ') || 'nothing of ours'})`,
      )
  }
  for (const file of sources(join(root, 'packages', dir, 'src'))) {
    if (/\.(test|bench)\.ts$/.test(file)) continue
    const text = readFileSync(file, 'utf8')
    for (const [, spec] of text.matchAll(
      /(?:from|import)\s*\(?\s*['"](@sd\/[a-z-]+)(?:\/[^'"]*)?['"]/g,
    )) {
      if (spec === pkg.name) continue
      if (!allowed.includes(spec))
        problems.push(`${file.slice(root.length)} imports ${spec}, which ${pkg.name} may not use`)
      else if (!declared.includes(spec))
        problems.push(
          `${file.slice(root.length)} imports ${spec}, missing from ${pkg.name}'s dependencies`,
        )
    }
  }
}

// No package may depend on an app or on the bench.
for (const dir of readdirSync(join(root, 'packages'))) {
  const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'))
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    if (dep === '@sd/playground' || dep === '@sd/bench' || dep.startsWith('@sd/app'))
      problems.push(`${pkg.name} must not depend on ${dep}`)
  }
}

if (problems.length > 0) {
  console.error(`dependency rules broken:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  process.exit(1)
}
console.log('dependency rules: ok')

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* sources(path)
    else if (path.endsWith('.ts')) yield path
  }
}
