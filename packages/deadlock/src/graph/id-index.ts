import { InvalidArgumentError } from '@sd/transport'
import type { ProcessId } from './types.js'

/**
 * A dense integer index per id, so the algorithms run on integer arrays. Indices of removed ids are
 * reused, which keeps the index range (and every array sized by it) close to the live count.
 */
export class IdIndex<Id extends ProcessId> {
  private readonly byId = new Map<Id, number>()
  /** Index to id; `undefined` marks a free index. */
  private readonly ids: (Id | undefined)[] = []
  private readonly free: number[] = []

  /** Live ids. */
  get count(): number {
    return this.byId.size
  }

  /** One past the largest index ever handed out: the size of index-keyed arrays. */
  get capacity(): number {
    return this.ids.length
  }

  indexOf(id: Id): number | undefined {
    return this.byId.get(id)
  }

  /** The index of `id`, given one if it has none yet; the caller has checked `id` (`checkId`). */
  intern(id: Id): number {
    const known = this.byId.get(id)
    if (known !== undefined) return known
    const index = this.free.length > 0 ? this.free.pop()! : this.ids.length
    this.ids[index] = id
    this.byId.set(id, index)
    return index
  }

  release(index: number): void {
    const id = this.ids[index]
    if (id === undefined) return
    this.byId.delete(id)
    this.ids[index] = undefined
    this.free.push(index)
  }

  /** The id at `index`, or undefined for a free index. */
  idAt(index: number): Id | undefined {
    return this.ids[index]
  }

  idsOf(indices: ArrayLike<number>): Id[] {
    const out = new Array<Id>(indices.length)
    for (let i = 0; i < indices.length; i++) out[i] = this.ids[indices[i]!]!
    return out
  }

  /** Live ids in index order. */
  all(): Id[] {
    const out: Id[] = []
    for (const id of this.ids) if (id !== undefined) out.push(id)
    return out
  }
}

/** Rejects what JavaScript callers could pass that is no process id (NaN would never equal itself). */
export function checkId(id: unknown): void {
  if (typeof id === 'string') return
  if (typeof id === 'number' && Number.isFinite(id)) return
  throw new InvalidArgumentError(
    `process id ${describe(id)} is not a string or a finite number: wait-for graphs identify processes by strings or numbers`,
  )
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return JSON.stringify(value)
  return typeof value
}
