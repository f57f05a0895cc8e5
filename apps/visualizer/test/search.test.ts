import { describe, expect, it } from 'vitest'
import { nextMatch, parseQuery, searchEvents } from '../src/search.js'
import { traceToDiagram } from '../src/trace.js'

function run() {
  return traceToDiagram({
    nodes: ['n1', 'n2', 'n3'],
    events: [
      { t: 0, type: 'start', node: 'n1' },
      { t: 1, type: 'send', id: 1, from: 'n1', to: 'n2', msg: { type: 'probe', hops: 3 } },
      { t: 2, type: 'deliver', id: 1, from: 'n1', to: 'n2', sentAt: 1 },
      { t: 3, type: 'emit', node: 'n2', event: { type: 'acquired', token: 3 } },
      { t: 4, type: 'emit', node: 'n2', event: { type: 'released', token: 3 } },
      { t: 5, type: 'emit', node: 'n3', event: { type: 'leader', leader: 'n3', term: 2 } },
      {
        t: 6,
        type: 'emit',
        node: 'n1',
        proto: 'app',
        event: { proto: 'app', event: { type: 'acquired', token: 31 } },
      },
      { t: 7, type: 'send', id: 2, from: 'n3', to: 'n1', msg: { type: 'probe' } },
      { t: 8, type: 'emit', node: 'n1', event: { type: 'vote', node: 'n2' } },
    ],
  })
}

const ids = (query: string) => searchEvents(run().events, query).map((e) => e.id)

describe('event search', () => {
  it('parses plain words and field=value, case ignored', () => {
    expect(parseQuery('  Acquired  node=N2 =x y= ')).toEqual([
      { value: 'acquired' },
      { field: 'node', value: 'n2' },
      { value: '=x' },
      { value: 'y=' },
    ])
    expect(parseQuery('   ')).toEqual([])
  })

  it('matches plain words anywhere in the text: type, message type, node, label', () => {
    expect(ids('acquired')).toEqual([3, 6])
    expect(ids('leader')).toEqual([5])
    expect(ids('probe')).toEqual([1, 2, 7])
    // n3: its own events, and the send from n3.
    expect(ids('n3')).toEqual([5, 7])
    expect(ids('#31')).toEqual([6])
    expect(ids('')).toEqual([])
    expect(ids('nothing-like-this')).toEqual([])
  })

  it('matches field=value exactly, every word of the query', () => {
    expect(ids('type=acquired')).toEqual([3, 6])
    expect(ids('type=acquired token=3')).toEqual([3])
    // node= is where the event happens, not a node named in its payload.
    expect(ids('node=n2')).toEqual([2, 3, 4])
    expect(ids('vote n2')).toEqual([8])
    expect(ids('entry.node=n2')).toEqual([8])
    expect(ids('msg=probe to=n2')).toEqual([1, 2])
    expect(ids('type=send')).toEqual([1, 7])
    expect(ids('proto=app')).toEqual([6])
    // Times are not searched: t=3 matches nothing.
    expect(ids('t=3')).toEqual([])
  })

  it('steps through matches, wrapping around', () => {
    expect(nextMatch(3, undefined, 1)).toBe(0)
    expect(nextMatch(3, undefined, -1)).toBe(2)
    expect(nextMatch(3, 2, 1)).toBe(0)
    expect(nextMatch(3, 0, -1)).toBe(2)
    expect(nextMatch(0, 0, 1)).toBe(-1)
  })
})
