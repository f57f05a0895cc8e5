import { type AsyncDisposableLike, asyncDispose } from '@sd/transport'
import type { MutexHandle } from './handle.js'
import { type AcquireOptions, checkResource } from './options.js'

/** The options of each acquire `acquireAll` makes (all but the resource). */
export type AcquireAllOptions = Omit<AcquireOptions, 'resource' | 'ifAvailable' | 'steal'>

/** Several resources held together: released together. */
export interface MultiHandle extends AsyncDisposableLike {
  /** One handle per resource, in the order taken (sorted by name). */
  readonly handles: readonly MutexHandle[]
  /** Each resource's fencing token. */
  readonly tokens: Readonly<Record<string, number>>
  /** True while every handle is held. */
  readonly held: boolean
  /** Releases every handle (in the reverse order). Idempotent. */
  release(): Promise<void>
}

/**
 * Takes `resources` one after the other in one global order (sorted, duplicates once): two callers
 * never hold one each of two resources while waiting for the other's, so they never deadlock.
 * `timeoutMs` applies to each acquire. A failure or an abort releases what was taken.
 */
export async function acquireAll(
  acquire: (options: AcquireOptions) => Promise<MutexHandle>,
  resources: readonly string[],
  options: AcquireAllOptions = {},
): Promise<MultiHandle> {
  const names = [...new Set(resources.map((r) => checkResource(r, 'acquireAll')))].sort()
  const handles: MutexHandle[] = []
  const releaseAll = async () => {
    for (const h of [...handles].reverse()) await h.release()
  }
  try {
    for (const resource of names) handles.push(await acquire({ ...options, resource }))
  } catch (error) {
    await releaseAll()
    throw error
  }
  const tokens = Object.fromEntries(handles.map((h) => [h.resource, h.token]))
  return {
    handles,
    tokens,
    get held() {
      return handles.every((h) => h.held)
    },
    release: releaseAll,
    [asyncDispose]: releaseAll,
  }
}
