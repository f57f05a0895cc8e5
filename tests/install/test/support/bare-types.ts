/**
 * The declarations a package ships, type-checked as a consumer without DOM or Node types would
 * meet them (`lib: es2022`, `types: []`, `skipLibCheck: false`): the main entries promise no
 * platform beyond ES2022 (the Node-only subpaths, such as `/udp`, are left out).
 */
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { runCommand } from './commands.js'

const tsc = createRequire(import.meta.url).resolve('typescript/lib/tsc.js')

/** tsc's complaints about `import * as entry from name` in `project` (empty when it compiles). */
export async function bareTypeErrors(project: string, name: string): Promise<string> {
  const file = join(project, 'bare-types.mts')
  writeFileSync(
    file,
    `import * as entry from '${name}'\nexport const names: string[] = Object.keys(entry)\n`,
  )
  const config = join(project, 'tsconfig.bare-types.json')
  writeFileSync(
    config,
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['es2022'],
        types: [],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
      },
      files: [file],
    }),
  )
  const result = await runCommand(process.execPath, [tsc, '-p', config, '--pretty', 'false'], {
    cwd: project,
    timeoutMs: 5 * 60_000,
  })
  return result.code === 0
    ? ''
    : `${result.stdout}${result.stderr}`.trim() || `tsc exited ${result.code}`
}
