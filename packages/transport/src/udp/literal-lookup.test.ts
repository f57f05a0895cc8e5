import { describe, expect, it } from 'vitest'
import { AddressError } from './errors.js'
import { literalLookup } from './literal-lookup.js'

describe('literalLookup (the socket lookup of the UDP transport)', () => {
  it('answers an IP literal before it returns, with its family', () => {
    const answers: unknown[][] = []
    literalLookup('127.0.0.1', 4, (...a) => answers.push(a))
    literalLookup('::1', 6, (...a) => answers.push(a))
    expect(answers).toEqual([
      [null, '127.0.0.1', 4],
      [null, '::1', 6],
    ])
  })

  it('refuses a name with an AddressError instead of asking DNS', () => {
    let error: Error | null = null
    literalLookup('localhost', 4, (e) => {
      error = e
    })
    expect(error).toBeInstanceOf(AddressError)
    expect(String(error)).toMatch(/not an IP address: "localhost"/)
  })
})
