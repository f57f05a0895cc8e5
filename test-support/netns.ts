/**
 * Network namespaces for tests: `ip` run and checked, namespaces named after the process that
 * made them (`<tag>-<pid>-<suffix>`) so that those of a killed test are found and deleted, and a
 * namespace with only its loopback interface (a private 127.0.0.1 and ::1: a server may bind a
 * privileged port there, a program reaches nothing outside). Hosts on a bridge: netns-hosts.ts.
 * Needs Linux, root and `ip` (iproute2).
 *
 * apps/cluster keeps its own (src/hosts.ts): it is runtime code, which does not import tests'.
 */
import { spawnSync } from 'node:child_process'
import { isAlive } from './processes.js'

/** Runs `command args` (stdin: `input`); its stdout, or an Error with its stderr. */
export function run(command: string, args: readonly string[], input?: string): string {
  const result = spawnSync(command, args, { input, encoding: 'utf8', timeout: 10_000 })
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')}: ${result.error?.message ?? result.stderr.trim()}`,
    )
  }
  return result.stdout
}

/** Deletes namespaces `<tag>-<pid>` and `<tag>-<pid>-*` whose creating process is gone (killed). */
export function deleteOrphanNamespaces(tag: string): void {
  const pattern = new RegExp(`^(${tag}-(\\d+)(?:-[a-z0-9]+)?)\\b`)
  const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? ''
  for (const line of list.split('\n')) {
    const match = pattern.exec(line)
    if (match && !isAlive(Number(match[2]))) spawnSync('ip', ['netns', 'del', match[1]!])
  }
}

/** Deletes namespace `name`, if it exists; synchronous, so exit handlers can call it. */
export function deleteNamespace(name: string): void {
  spawnSync('ip', ['netns', 'del', name], { timeout: 10_000 })
}

export interface LoopbackNamespace {
  readonly name: string
  /** The command prefix that runs a program inside it. */
  readonly exec: readonly string[]
  /** Deletes it; idempotent. */
  destroy(): void
}

/**
 * A namespace `<tag>-<pid>-<random>` with its loopback interface up and nothing else, after
 * deleting the orphans of killed tests with the same tag.
 */
export function createLoopbackNamespace(tag: string): LoopbackNamespace {
  deleteOrphanNamespaces(tag)
  const name = `${tag}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`
  let destroyed = false
  const destroy = () => {
    if (destroyed) return
    destroyed = true
    deleteNamespace(name)
  }
  run('ip', ['netns', 'add', name])
  try {
    run('ip', ['-n', name, 'link', 'set', 'lo', 'up'])
  } catch (e) {
    destroy()
    throw e
  }
  return { name, exec: ['ip', 'netns', 'exec', name], destroy }
}
