import { readFileSync } from 'node:fs'

/** The playground's version, from its package.json (read when asked, so tests see the file). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  return String(pkg.version)
}
