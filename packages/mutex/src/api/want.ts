import type { LockFeature } from '../contract.js'
import { InvalidArgumentError, UnsupportedLockFeatureError } from '../errors.js'
import { type AcquireOptions, checkCount, checkMode } from './options.js'
import type { Want } from './slot.js'

/**
 * What an acquire asks for, checked: `permits` against the resource's limit, `ifAvailable` and
 * `steal` against the algorithm's features (they cannot be granted as a safer entry).
 */
export function wantOf(
  opts: AcquireOptions,
  resource: string,
  limits: Readonly<Record<string, number>>,
  features: readonly LockFeature[],
): Want {
  const mode = checkMode(opts.mode)
  let permits: Want['permits']
  if (opts.permits !== undefined) {
    const of = Object.hasOwn(limits, resource) ? limits[resource] : undefined
    if (of === undefined) {
      throw new InvalidArgumentError(
        `acquire: ${JSON.stringify(resource)} has no permit limit: give it one with createMutex({ permits: { ${JSON.stringify(resource)}: n } })`,
      )
    }
    const take = checkCount(opts.permits, 'acquire: permits')
    if (take > of) {
      throw new InvalidArgumentError(
        `acquire: permits ${take} is more than ${JSON.stringify(resource)}'s limit ${of}`,
      )
    }
    if (mode === 'shared') {
      throw new InvalidArgumentError('acquire: permits and mode shared do not go together')
    }
    permits = { take, of }
  }
  const ifAvailable = opts.ifAvailable === true
  const steal = opts.steal === true
  if (ifAvailable && steal) {
    throw new InvalidArgumentError('acquire: ifAvailable and steal do not go together')
  }
  if (steal && (mode === 'shared' || permits !== undefined)) {
    throw new InvalidArgumentError('acquire: steal takes an exclusive entry only')
  }
  if (ifAvailable && !features.includes('ifAvailable')) {
    throw new UnsupportedLockFeatureError('ifAvailable')
  }
  if (steal && !features.includes('steal')) throw new UnsupportedLockFeatureError('steal')
  return { mode, permits, ifAvailable, steal }
}
