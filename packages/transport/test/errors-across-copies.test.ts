import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildBothFormats, type DualBuild } from '../../../test-support/dual-build.js'
import * as source from '../src/index.js'

type Entry = typeof source
const pkg = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url))

describe('errors thrown by another copy of the package', () => {
  let copies: DualBuild<Entry>

  beforeAll(async () => {
    copies = await buildBothFormats<Entry>(pkg('src/index.ts'), pkg('tsconfig.build.json'))
  }, 300_000)
  afterAll(() => copies?.remove())

  it('fail instanceof but pass isSdError, by code', () => {
    const { cjs, esm } = copies
    const fromCjs = new cjs.UnknownNodeError('ghost', 'send()')
    const fromEsm = new esm.ProtocolStoppedError('n1')

    // The dual-package hazard itself: each copy has its own classes.
    expect(fromCjs instanceof esm.UnknownNodeError).toBe(false)
    expect(fromCjs instanceof source.SdError).toBe(false)
    expect(fromEsm instanceof cjs.SdError).toBe(false)

    for (const isSdError of [source.isSdError, cjs.isSdError, esm.isSdError]) {
      expect(isSdError(fromCjs)).toBe(true)
      expect(isSdError(fromCjs, 'ERR_UNKNOWN_NODE')).toBe(true)
      expect(isSdError(fromCjs, 'ERR_PROTOCOL_STOPPED')).toBe(false)
      expect(isSdError(fromEsm, 'ERR_PROTOCOL_STOPPED')).toBe(true)
    }
  })

  it('recognises errors thrown by the other copy, with their fields', () => {
    const net = new copies.cjs.SimNetwork({ seed: 1 })
    net.addNode('a')
    let caught: unknown
    try {
      net.transport('a').send('nobody', 'hello')
    } catch (error) {
      caught = error
    }
    expect(caught).toBeDefined()
    expect(caught instanceof source.UnknownNodeError).toBe(false)
    expect(source.isSdError(caught, 'ERR_UNKNOWN_NODE')).toBe(true)
    if (source.isSdError(caught, 'ERR_UNKNOWN_NODE')) expect(caught.node).toBe('nobody')
  })

  it('can be matched by code in tests, as the README advises', () => {
    const net = new copies.esm.SimNetwork({ seed: 1 })
    const a = net.addNode('a')
    const send = () => a.send('nobody', 'hello')
    expect(send).toThrow(expect.objectContaining({ code: 'ERR_UNKNOWN_NODE' }))
    expect(send).not.toThrow(expect.objectContaining({ code: 'ERR_TRANSPORT_CLOSED' }))
    expect(send).not.toThrow(source.UnknownNodeError)
  })
})

describe('isSdError', () => {
  it('accepts every error class of the entry with its own code', () => {
    const errors: [source.SdError, source.SdErrorCode][] = [
      [new source.UnknownNodeError('x', 'here'), 'ERR_UNKNOWN_NODE'],
      [new source.TransportClosedError('x', 'send'), 'ERR_TRANSPORT_CLOSED'],
      [new source.InvalidArgumentError('bad'), 'ERR_INVALID_ARGUMENT'],
      [new source.ProtocolError('x', 'timer', 'timer', new Error('boom')), 'ERR_PROTOCOL'],
      [new source.ProtocolStoppedError('x'), 'ERR_PROTOCOL_STOPPED'],
      [new source.SimulationError('stuck', 7, 10), 'ERR_SIMULATION'],
      [new source.CodecError('bad bytes'), 'ERR_CODEC'],
      [new source.MessageTooLargeError(10, 5), 'ERR_MESSAGE_TOO_LARGE'],
      [new source.PeerUnreachableError('x', 3), 'ERR_PEER_UNREACHABLE'],
      [new source.StorageValueError('k', 'NaN'), 'ERR_STORAGE_VALUE'],
      [new source.StorageCorruptError('/f', 'torn'), 'ERR_STORAGE_CORRUPT'],
      [new source.StorageIoError('/f', 'write', new Error('EROFS')), 'ERR_STORAGE_IO'],
      [new source.WiringDepthError(['a', 'b'], 1), 'ERR_WIRING_DEPTH'],
    ]
    for (const [error, code] of errors) {
      expect(error.code).toBe(code)
      expect(source.isSdError(error, code)).toBe(true)
      expect(source.isSdError(error, 'ERR_NOT_A_CODE')).toBe(false)
    }
  })

  it('refuses look-alikes: a plain error with an sd code, non-errors', () => {
    const lookAlike = Object.assign(new Error('not ours'), { code: 'ERR_UNKNOWN_NODE' })
    expect(source.isSdError(lookAlike)).toBe(false)
    expect(source.isSdError(lookAlike, 'ERR_UNKNOWN_NODE')).toBe(false)
    for (const value of [undefined, null, 'ERR_CODEC', 42, {}, { code: 'ERR_CODEC' }])
      expect(source.isSdError(value)).toBe(false)
  })
})
