import {
  InvalidArgumentError,
  type JsonValue,
  type NodeId,
  readStored,
  type StableStorage,
  storedShapes,
} from '@sd/transport'
import { nameMap, type Snapshot, snapshotFields } from '../snapshot.js'

/** Whom a coordinator granted a resource to, and the counter it granted with. */
export interface Grant {
  client: NodeId
  session: number
  attempt: number
  counter: number
}

/** A coordinator's grants, per resource, and its grant counters. */
export interface GrantStore {
  holder(resource: string, storage: StableStorage): Grant | undefined
  /** The last counter handed out or released past, on this resource. */
  counter(resource: string, storage: StableStorage): number
  set(resource: string, holder: Grant | undefined, counter: number, storage: StableStorage): void
  /** Reads everything stored once, so a damaged store is refused when the node starts. */
  check(storage: StableStorage): void
  /** What it keeps in memory, as canonical plain data (null: all of it is in stable storage). */
  snapshot(): Snapshot
  /** Takes on what `snapshot()` gave (for the protocol's `restore()`). */
  restore(snapshot: Snapshot): void
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
    check() {},
    snapshot: () => ({
      holders: nameMap(holders, (g) => ({
        client: g.client,
        session: g.session,
        attempt: g.attempt,
        counter: g.counter,
      })),
      counters: nameMap(counters, (c) => c),
    }),
    restore(snapshot) {
      const s = snapshotFields(snapshot, 'quorumMutex()', ['holders', 'counters'])
      holders.clear()
      counters.clear()
      for (const [name, g] of s.holders as Array<[string, Grant]>) holders.set(name, { ...g })
      for (const [name, c] of s.counters as Array<[string, number]>) counters.set(name, c)
    },
  }
}

const GRANT = 'quorum/grant/'
const COUNTER = 'quorum/counter/'

/** What a stored grant must look like: a value of another shape is refused, never defaulted. */
const grantShape = storedShapes.record({
  client: storedShapes.nodeId,
  session: storedShapes.count,
  attempt: storedShapes.count,
  counter: storedShapes.count,
})

/**
 * Stable storage (the handler's `ctx.storage`, passed to each call): a restart remembers whom it
 * granted (the grant leaves once it is durable). A stored value of the wrong shape throws `StoredStateError`: read as "no grant" or "counter 0",
 * it would let the coordinator grant a second client, or hand out a token again.
 */
export function durableGrants(): GrantStore {
  const holder = (resource: string, storage: StableStorage): Grant | undefined => {
    const g = readStored(storage, GRANT + resource, grantShape)
    return g === undefined
      ? undefined
      : { client: g.client, session: g.session, attempt: g.attempt, counter: g.counter }
  }
  const counter = (resource: string, storage: StableStorage): number =>
    readStored(storage, COUNTER + resource, storedShapes.count) ?? 0
  return {
    holder,
    counter,
    set(resource, grant, next, s) {
      if (grant === undefined) s.delete(GRANT + resource)
      else s.set(GRANT + resource, { ...grant } satisfies Record<string, JsonValue>)
      s.set(COUNTER + resource, next)
    },
    check(storage) {
      for (const key of storage.keys()) {
        if (key.startsWith(GRANT)) holder(key.slice(GRANT.length), storage)
        else if (key.startsWith(COUNTER)) counter(key.slice(COUNTER.length), storage)
      }
    },
    snapshot: () => null,
    restore(snapshot) {
      if (snapshot !== null)
        throw new InvalidArgumentError('quorumMutex(): restore() of durable grants takes null')
    },
  }
}
