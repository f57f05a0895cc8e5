/**
 * membership-worker.ts processes for the real-process membership test: spawning one in a host's
 * namespace, and reading its JSON lines back as the same `{ node, t, event }` shapes the
 * simulator's traces have, so `checkViews` and `checkElection` judge them as they judge a run.
 */
import { fileURLToPath } from 'node:url'
import type { NodeId } from '@sd/transport'
import type { MembershipWorkerConfig } from './membership-worker.js'
import { spawnScript, type Worker } from './processes.js'

const script = fileURLToPath(new URL('./membership-worker.ts', import.meta.url))
// Run from @sd/election's directory: tsx then maps @sd/* to the sources, as the package's tests do.
const packageDir = fileURLToPath(new URL('../packages/election', import.meta.url))

export interface Fact {
  /** The process's id, or a label of its own for a second incarnation (see `Member.label`). */
  node: NodeId
  t: number
  proto: 'election' | 'membership' | 'swim' | 'worker'
  event: { type: string; [field: string]: unknown }
}

/** One process: its worker, and the label its facts carry. */
export interface Member {
  worker: Worker
  label: string
}

export function spawnMember(
  config: MembershipWorkerConfig,
  prefix: readonly string[],
  into: Worker[],
  label: string = config.id,
): Member {
  return {
    worker: spawnScript(script, packageDir, { ...config }, into, prefix),
    label,
  }
}

const parsed = new WeakMap<Worker, { read: number; facts: Fact[] }>()

/** Every fact the process printed so far (parsed once per line). */
export function factsOf(m: Member): Fact[] {
  const cache = parsed.get(m.worker) ?? { read: 0, facts: [] }
  parsed.set(m.worker, cache)
  for (; cache.read < m.worker.lines.length; cache.read++) {
    const text = m.worker.lines[cache.read]!
    if (text.startsWith('{')) cache.facts.push({ node: m.label, ...JSON.parse(text) } as Fact)
  }
  return cache.facts
}

export const ofProto = (facts: readonly Fact[], proto: Fact['proto']) =>
  facts.filter((f) => f.proto === proto)

/** The members of the last agreed view the process installed. */
export function agreedMembers(m: Member): NodeId[] | undefined {
  const views = ofProto(factsOf(m), 'membership').filter((f) => f.event.type === 'view')
  return views.at(-1)?.event.members as NodeId[] | undefined
}

/** The members of the process's last SWIM view. */
export function swimMembers(m: Member): NodeId[] | undefined {
  const views = ofProto(factsOf(m), 'swim').filter((f) => f.event.type === 'view')
  return views.at(-1)?.event.members as NodeId[] | undefined
}

/** The leader the process follows now (its last `leader` not followed by `leader-lost`). */
export function leaderOf(m: Member): { leader: NodeId; term: number } | undefined {
  const last = ofProto(factsOf(m), 'election')
    .filter((f) => f.event.type === 'leader' || f.event.type === 'leader-lost')
    .at(-1)
  return last?.event.type === 'leader'
    ? { leader: last.event.leader as NodeId, term: last.event.term as number }
    : undefined
}

/** Waits up to `ms` for `done`, polling every 20 ms; throws naming `what` on timeout. */
export async function waitUntil(done: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = performance.now() + ms
  while (!done()) {
    if (performance.now() > deadline)
      throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
