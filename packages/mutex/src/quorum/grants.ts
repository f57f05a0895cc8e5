import type { JsonValue, NodeId, StableStorage } from '@sd/transport'

/** Whom a coordinator granted a resource to, and the counter it granted with. */
export interface Grant {
  client: NodeId
  session: number
  attempt: number
  counter: number
}

/** A coordinator's grants, per resource, and its grant counters. */
export interface GrantStore {
  holder(resource: string): Grant | undefined
  /** The last counter handed out or released past, on this resource. */
  counter(resource: string): number
  set(resource: string, holder: Grant | undefined, counter: number): void
}

/** Plain memory, as in the texts: a restart forgets every grant (and the counters). */
export function volatileGrants(): GrantStore {
  const holders = new Map<string, Grant>()
  const counters = new Map<string, number>()
  return {
    holder: (resource) => holders.get(resource),
    counter: (resource) => counters.get(resource) ?? 0,
    set(resource, holder, counter) {
      if (holder === undefined) holders.delete(resource)
      else holders.set(resource, holder)
      counters.set(resource, counter)
    },
  }
}

const holderKey = (resource: string) => `quorum/grant/${resource}`
const counterKey = (resource: string) => `quorum/counter/${resource}`

/** Stable storage: a restart remembers whom it granted (the grant leaves once it is durable). */
export function durableGrants(storage: () => StableStorage): GrantStore {
  return {
    holder: (resource) => (storage().get(holderKey(resource)) as Grant | undefined) ?? undefined,
    counter: (resource) => (storage().get(counterKey(resource)) as number | undefined) ?? 0,
    set(resource, holder, counter) {
      const s = storage()
      if (holder === undefined) s.delete(holderKey(resource))
      else s.set(holderKey(resource), { ...holder } as unknown as JsonValue)
      s.set(counterKey(resource), counter)
    },
  }
}
