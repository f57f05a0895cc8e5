import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Runs a README's TypeScript examples the way a user meets them: in a project of their own (made
 * by `npm init -y`, so `"type": "commonjs"`) where the packages were installed, not against the
 * repository's sources. Each example is saved under the name the README gives, run with tsx, and
 * type-checked under `strict` with `NodeNext` and again with `bundler`.
 */

const repo = fileURLToPath(new URL('../', import.meta.url))
const bin = (name: string) => join(repo, 'node_modules', '.bin', name)

/** One fenced ```ts block: its code, the line of its first code line, and the file to save it as. */
export interface ReadmeExample {
  code: string
  line: number
  file: string
}

const SAVE_AS = /[Ss]ave (?:it |one |this |each )?as `([^`]+\.[cm]?ts)`/g
const DEFAULT_FILE = 'example.ts'

/**
 * Every ```ts block of `markdown`, with the file name the README tells the user to save it as:
 * the last "save ... as `NAME`" in the prose since the previous block, else the first one of the
 * README (its general instruction), else `example.ts`.
 */
export function readmeExamples(markdown: string): ReadmeExample[] {
  const fences = [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)]
  const prose: string[] = []
  let from = 0
  for (const fence of fences) {
    prose.push(markdown.slice(from, fence.index))
    from = fence.index + fence[0].length
  }
  const general = prose.flatMap((p) => [...p.matchAll(SAVE_AS)])[0]?.[1] ?? DEFAULT_FILE
  const examples: ReadmeExample[] = []
  fences.forEach((fence, i) => {
    if (fence[1] !== 'ts') return
    const local = [...prose[i]!.matchAll(SAVE_AS)].at(-1)?.[1]
    examples.push({
      code: fence[2]!,
      line: markdown.slice(0, fence.index).split('\n').length + 1,
      file: local ?? general,
    })
  })
  return examples
}

/** Libraries the README says a consumer needs beyond es2022 (`"lib": [...]` in its prose). */
export function readmeLibs(markdown: string): string[] {
  const outside = markdown.replace(/^```[\s\S]*?^```/gm, '')
  const libs = new Set(['es2022'])
  for (const m of outside.matchAll(/"lib": \[([^\]]*)\]/g)) {
    for (const lib of m[1]!.matchAll(/"([\w.]+)"/g)) libs.add(lib[1]!.toLowerCase())
  }
  return [...libs]
}

/** The two settings every example must type-check under. */
export const TYPE_SETTINGS = {
  nodenext: { module: 'NodeNext', moduleResolution: 'NodeNext' },
  bundler: { module: 'preserve', moduleResolution: 'bundler' },
} as const

const isTestFile = (file: string) => /\.test\.[cm]?ts$/.test(file)

/**
 * The development tools the examples need and the README tells the user to install beside the
 * packages (`@types/node` for `node:assert`, vitest for a test file): linked from the repository
 * when the project lacks them, since a test registry has no uplinks. Returns what it linked, to
 * be removed afterwards, so the project's `npm ls` is unchanged.
 */
function linkDevTools(projectDir: string, needVitest: boolean): string[] {
  const linked: string[] = []
  for (const name of ['@types/node', ...(needVitest ? ['vitest'] : [])]) {
    const target = join(projectDir, 'node_modules', name)
    if (existsSync(target)) continue
    const created = mkdirSync(dirname(target), { recursive: true })
    symlinkSync(join(repo, 'node_modules', name), target, 'dir')
    // Removed in reverse order: the link, then the folders made for it (first one made last).
    if (created !== undefined) linked.push(created)
    linked.push(target)
  }
  return linked
}

function run(command: string, args: string[], cwd: string): { ok: boolean; output: string } {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  })
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`
  return { ok: result.status === 0, output: output.trim() }
}

/** Runs the saved example as the README says: `npx tsx FILE`, or `npx vitest run FILE` for a test. */
function runExample(projectDir: string, file: string): { ok: boolean; output: string } {
  if (isTestFile(file)) return run(bin('vitest'), ['run', '--root', projectDir, file], projectDir)
  return run(bin('tsx'), [file], projectDir)
}

function typeCheck(
  projectDir: string,
  file: string,
  setting: keyof typeof TYPE_SETTINGS,
  lib: string[],
): { ok: boolean; output: string } {
  const config = join(projectDir, `tsconfig.readme-${setting}.json`)
  const compilerOptions = {
    ...TYPE_SETTINGS[setting],
    strict: true,
    target: 'es2022',
    lib,
    noEmit: true,
    skipLibCheck: false,
  }
  writeFileSync(config, JSON.stringify({ compilerOptions, files: [file] }, null, 2))
  try {
    return run(bin('tsc'), ['-p', config, '--pretty', 'false'], projectDir)
  } finally {
    rmSync(config, { force: true })
  }
}

/** What happened to one example: each check's output, or `undefined` when it passed. */
export interface ExampleOutcome {
  line: number
  file: string
  run?: string
  nodenext?: string
  bundler?: string
}

/**
 * Saves every TypeScript example of the README at `readmePath` into `projectDir` (a project in
 * which the packages are installed) under the name the README gives, runs it there, and
 * type-checks it under both settings. The project is left as it was found.
 */
export async function examineReadmeExamples({
  projectDir,
  readmePath,
}: {
  projectDir: string
  readmePath: string
}): Promise<ExampleOutcome[]> {
  const markdown = readFileSync(readmePath, 'utf8')
  const examples = readmeExamples(markdown)
  const lib = readmeLibs(markdown)
  const outcomes: ExampleOutcome[] = []
  const linked = linkDevTools(
    projectDir,
    examples.some((e) => isTestFile(e.file)),
  )
  try {
    for (const example of examples) {
      const outcome: ExampleOutcome = { line: example.line, file: example.file }
      outcomes.push(outcome)
      const path = join(projectDir, example.file)
      if (existsSync(path)) {
        outcome.run = `the project already has a ${example.file}; not overwritten`
        continue
      }
      writeFileSync(path, example.code)
      try {
        const ran = runExample(projectDir, example.file)
        if (!ran.ok) outcome.run = ran.output
        for (const setting of Object.keys(TYPE_SETTINGS) as (keyof typeof TYPE_SETTINGS)[]) {
          const checked = typeCheck(projectDir, example.file, setting, lib)
          if (!checked.ok) outcome[setting] = checked.output
        }
      } finally {
        rmSync(path, { force: true })
      }
    }
  } finally {
    for (const link of linked.reverse()) rmSync(link, { recursive: true, force: true }) // a link itself, not its target
  }
  return outcomes
}

/**
 * `examineReadmeExamples` as a list of failures, one message per example and check that failed;
 * empty when every example of the README runs and type-checks under both settings.
 */
export async function checkReadmeExamples(options: {
  projectDir: string
  readmePath: string
}): Promise<string[]> {
  const outcomes = await examineReadmeExamples(options)
  if (outcomes.length === 0) return [`${options.readmePath}: no TypeScript example`]
  const failures: string[] = []
  for (const o of outcomes) {
    const where = `${options.readmePath}:${o.line} (saved as ${o.file})`
    if (o.run !== undefined) failures.push(`${where}: does not run\n${o.run}`)
    for (const setting of Object.keys(TYPE_SETTINGS) as (keyof typeof TYPE_SETTINGS)[]) {
      const output = o[setting]
      if (output !== undefined)
        failures.push(`${where}: does not type-check (${setting})\n${output}`)
    }
  }
  return failures
}
