import { SdError } from '@sd/transport'

/** The lock was closed: a pending acquire is given up, and no new one is accepted. */
export class MutexClosedError extends SdError {
  readonly resource: string
  constructor(resource: string) {
    super('ERR_MUTEX_CLOSED', `the lock was closed while acquiring ${JSON.stringify(resource)}`)
    this.resource = resource
  }
}
