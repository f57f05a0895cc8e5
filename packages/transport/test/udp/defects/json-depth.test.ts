// Defect 8: the default codec accepted any nesting (about 524,000 levels fit in 1 MiB), and a handler
// recursing over such a message overflows the stack. After the fix it refuses more than 64 levels.
import { describe, expect, it } from 'vitest'
import { type Codec, createJsonCodec, jsonCodec } from '../../../src/udp/index.js'
import { closeEverythingAfterEach, node, pollUntil } from './support.js'

closeEverythingAfterEach()

/** Sends bytes as they are, so the receiver's codec sees exactly what the test wrote. */
const raw: Codec<Uint8Array> = { name: 'raw', encode: (b) => b, decode: (b) => b }

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1)
const bytes = (text: string) => Buffer.from(text, 'utf8')

/** Containers on the deepest path, counted without recursion (the point is not to overflow). */
function depthOf(value: unknown): number {
  let deepest = 0
  const stack: Array<[unknown, number]> = [[value, 1]]
  while (stack.length > 0) {
    const [v, d] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    deepest = Math.max(deepest, d)
    for (const child of Object.values(v)) stack.push([child, d + 1])
  }
  return deepest
}

describe('defect 8: hostile JSON nesting', () => {
  it('the default codec drops messages nested deeper than 64 as undecodable and still delivers 64', async () => {
    const a = await node<Uint8Array>({ id: 'a', codec: raw })
    const b = await node({ id: 'b', peers: { a: `127.0.0.1:${a.address.port}` } })
    a.setPeer('b', `127.0.0.1:${b.address.port}`)
    const delivered: number[] = []
    const overflows: unknown[] = []
    b.onMessage((_from, msg) => {
      delivered.push(depthOf(msg))
      try {
        JSON.stringify(msg) // what an application handler may well do
      } catch (error) {
        overflows.push(error) // caught here so the test reports it instead of crashing the worker
      }
    })
    // One at a time: bundled after an unreadable message, a message would be dropped with the rest
    // of its bundle (issue 20: a bundle with an unreadable message is hostile). Only a raw-codec
    // sender like this one can produce such messages; jsonCodec.encode refuses them.
    for (const [i, message] of [arrays(100_000), objects(65), objects(64)].entries()) {
      a.send('b', bytes(message))
      await pollUntil(
        () => b.stats.messagesDelivered + b.stats.dropped.undecodable >= i + 1,
        `message ${i} to be delivered or dropped`,
        30_000,
      )
    }
    expect(delivered, 'depths of the messages handed to the handler').toEqual([64])
    expect(overflows).toEqual([])
    expect(b.stats.dropped.undecodable, 'stats.dropped.undecodable').toBe(2)
  })

  it('jsonCodec.encode refuses what decode would: 65 levels', () => {
    expect(() => jsonCodec.encode(JSON.parse(objects(65))), '65 nested objects').toThrow(
      /deeper than 64/,
    )
    expect(jsonCodec.decode(jsonCodec.encode(JSON.parse(objects(64))))).toEqual(
      JSON.parse(objects(64)),
    )
  })

  it('jsonCodec.decode refuses 65 levels (arrays or objects) and reads 64', () => {
    expect(() => jsonCodec.decode(bytes(arrays(65))), '65 nested arrays').toThrow()
    expect(() => jsonCodec.decode(bytes(objects(65))), '65 nested objects').toThrow()
    expect(() => jsonCodec.decode(bytes(arrays(100_000))), '100,000 nested arrays').toThrow()
    expect(depthOf(jsonCodec.decode(bytes(arrays(64))))).toBe(64)
    expect(depthOf(jsonCodec.decode(bytes(objects(64))))).toBe(64)
  })

  it('createJsonCodec({ maxDepth }) from @sd/transport/udp makes another limit', () => {
    const codec = createJsonCodec({ maxDepth: 100 })
    expect(depthOf(codec.decode(bytes(objects(100))))).toBe(100)
    expect(() => codec.decode(bytes(objects(101))), '101 nested objects').toThrow()
    expect(codec.decode(codec.encode({ n: [1, 'two'] }))).toEqual({ n: [1, 'two'] })
  })
})
