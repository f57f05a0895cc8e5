/**
 * Another commit's packages, built, for `pnpm bench:against`: the commit's tree is exported with
 * `git archive` (no worktree left registered) into <tmpdir>/sd-bench-baselines/<sha>/ (outside the
 * repository, where no lint or type check walks), installed from the lockfile of that commit and its
 * packages built. A finished build is marked and reused.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface BaselineBuild {
  sha: string
  /** The commit's subject line, for the report. */
  subject: string
  /** Its packages/ directory, for SD_BENCH_PACKAGES. */
  packagesDir: string
}

const BUILT = '.sd-bench-built'

export function prepareBaseline(
  repoDir: string,
  ref: string,
  log: (line: string) => void,
): BaselineBuild {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repoDir, ...args], { encoding: 'utf8' }).trim()
  let sha: string
  try {
    sha = git('rev-parse', '--verify', `${ref}^{commit}`)
  } catch {
    throw new Error(`bench:against: ${JSON.stringify(ref)} is not a commit of this repository`)
  }
  const subject = git('log', '-1', '--format=%s', sha)
  const dir = join(tmpdir(), 'sd-bench-baselines', sha)
  const packagesDir = join(dir, 'packages')
  if (existsSync(join(dir, BUILT))) {
    log(`baseline ${sha.slice(0, 7)}: built already (${dir})`)
    return { sha, subject, packagesDir }
  }
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  log(`baseline ${sha.slice(0, 7)}: exporting the tree`)
  execFileSync('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', repoDir, sha, dir])
  const pnpm = pnpmCommand()
  const run = (args: string[]) =>
    execFileSync(pnpm[0]!, [...pnpm.slice(1), ...args], { cwd: dir, stdio: 'inherit' })
  log(`baseline ${sha.slice(0, 7)}: installing from its lockfile`)
  try {
    run(['install', '--frozen-lockfile', '--offline'])
  } catch {
    run(['install', '--frozen-lockfile']) // a dependency of that commit not in the local store
  }
  log(`baseline ${sha.slice(0, 7)}: building its packages`)
  run(['--filter', './packages/*', 'run', 'build'])
  writeFileSync(join(dir, BUILT), `${sha}\n`)
  return { sha, subject, packagesDir }
}

/** The pnpm that runs this script (pnpm sets npm_execpath), else the one on the PATH. */
function pnpmCommand(): string[] {
  const execPath = process.env.npm_execpath
  if (execPath && /pnpm/.test(execPath)) {
    return execPath.endsWith('.js') || execPath.endsWith('.cjs')
      ? [process.execPath, execPath]
      : [execPath]
  }
  return ['pnpm']
}
