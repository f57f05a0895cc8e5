// Issue 20, smaller points: close({ timeoutMs: -1 }) threw instead of rejecting, and
// transport.address threw node:dgram's bare Error after close. Both are typed errors now.
import { describe, expect, it } from 'vitest'
import { InvalidArgumentError, TransportClosedError } from '../../../src/errors.js'
import { closeEverythingAfterEach, node } from './support.js'

closeEverythingAfterEach()

describe('issue 20: typed errors from close and address', () => {
  it('close({ timeoutMs: -1 }) rejects with InvalidArgumentError instead of throwing', async () => {
    const t = await node({ id: 'a' })
    let result: Promise<unknown> | undefined
    expect(() => {
      result = t.close({ timeoutMs: -1 })
    }, 'close must not throw').not.toThrow()
    await expect(result).rejects.toBeInstanceOf(InvalidArgumentError)
    expect(t.closed, 'a refused close leaves the transport open').toBe(false)
    expect(t.address.port).toBeGreaterThan(0)
  })

  it('transport.address after close throws TransportClosedError', async () => {
    const t = await node({ id: 'a' })
    await t.close({ graceful: false })
    expect(() => t.address).toThrow(TransportClosedError)
  })
})
