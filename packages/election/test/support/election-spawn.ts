/** Starting election-worker.ts child processes for the multi-process tests. */
import { fileURLToPath } from 'node:url'
import { spawnScript, type Worker } from '../../../../test-support/processes.js'

export { freePorts, type Worker } from '../../../../test-support/processes.js'

const script = fileURLToPath(new URL('./election-worker.ts', import.meta.url))
const packageDir = fileURLToPath(new URL('../..', import.meta.url))

/**
 * Spawns a worker with `config` and pushes it on `into` first (for the caller's cleanup);
 * `prefix` runs it elsewhere (`ip netns exec <namespace>`).
 */
export function spawnWorker(
  config: Record<string, unknown>,
  into: Worker[],
  prefix: readonly string[] = [],
): Worker {
  return spawnScript(script, packageDir, config, into, prefix)
}

/** Who `w` believed was leader over time: its LEADER / NONE lines, with the time of each. */
export function timelineOf(w: Worker): Array<{ leader: string | undefined; t: number }> {
  const out: Array<{ leader: string | undefined; t: number }> = []
  for (const line of w.lines) {
    const parts = line.split(' ') // LEADER <leader> <term> <t> | NONE <term> <t>
    if (parts[0] === 'LEADER') out.push({ leader: parts[1], t: Number(parts[3]) })
    else if (parts[0] === 'NONE') out.push({ leader: undefined, t: Number(parts[2]) })
  }
  return out
}

/** The worker's current view: its last LEADER / NONE line. */
export function viewOf(w: Worker): { leader: string; term: number; t: number } | undefined {
  for (let i = w.lines.length - 1; i >= 0; i--) {
    const [kind, a, b, c] = w.lines[i]!.split(' ')
    if (kind === 'LEADER') return { leader: a!, term: Number(b), t: Number(c) }
    if (kind === 'NONE') return undefined
  }
  return undefined
}

/** What `spawnMajorityGroup` needs: one host per member, in network namespaces the test made. */
export interface MajorityGroupOptions {
  addresses: readonly string[]
  exec: (index: number) => readonly string[]
  port: number
  intervalMs: number
  timeoutMs: number
  /** Where each member keeps its state file. */
  dir: string
}

/**
 * Starts members n1..nN running the majority mode, one per namespace, each with its own state
 * file; pushed on `into` for the caller's cleanup. The caller waits for their READY lines.
 */
export function spawnMajorityGroup(o: MajorityGroupOptions, into: Worker[]): Worker[] {
  const ids = o.addresses.map((_, i) => `n${i + 1}`)
  const peers = Object.fromEntries(ids.map((id, i) => [id, `${o.addresses[i]}:${o.port}`]))
  return ids.map((id, i) =>
    spawnWorker(
      {
        id,
        host: o.addresses[i],
        port: o.port,
        peers,
        algorithm: 'majority',
        intervalMs: o.intervalMs,
        timeoutMs: o.timeoutMs,
        storage: `${o.dir}/${id}.json`,
      },
      into,
      o.exec(i),
    ),
  )
}
