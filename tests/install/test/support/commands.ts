/**
 * Commands the install tests run (pnpm release, npm, node), each in its own process group with a
 * time bound: on expiry the whole group is killed (pnpm and npm start children of their own).
 */
import { spawn } from 'node:child_process'

export interface CommandResult {
  code: number | null
  stdout: string
  stderr: string
}

export interface CommandOptions {
  cwd: string
  env?: NodeJS.ProcessEnv
  timeoutMs: number
}

/** Runs `command args` to its end or to the time bound; never rejects on a non-zero exit. */
export function runCommand(
  command: string,
  args: readonly string[],
  { cwd, env = process.env, timeoutMs }: CommandOptions,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const timer = setTimeout(() => {
      killGroup(child.pid, 'SIGKILL')
      reject(new Error(`${command} ${args.join(' ')} took more than ${timeoutMs} ms (killed)`))
    }, timeoutMs)
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** Like runCommand, but a non-zero exit rejects with the command's output. */
export async function mustRun(
  command: string,
  args: readonly string[],
  options: CommandOptions,
): Promise<string> {
  const result = await runCommand(command, args, options)
  if (result.code !== 0)
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.code} in ${options.cwd}\n${result.stdout}\n${result.stderr}`,
    )
  return result.stdout
}

/** Signals the process group led by `pid`; a group already gone is no error. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // already exited
  }
}

/**
 * The environment for npm and pnpm: this process's, without the npm_config_* a parent pnpm or npm
 * set (they would leak its registry or user config into the scratch projects), plus `extra`.
 */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env))
    if (!key.toLowerCase().startsWith('npm_config_')) env[key] = value
  return { ...env, NO_COLOR: '1', ...extra }
}
