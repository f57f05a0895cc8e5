import { type Diagram, InputError } from './model.js'
import { looksLikeShiViz, shivizToDiagram } from './shiviz.js'
import { traceToDiagram } from './trace.js'

/**
 * Whatever was opened, as a diagram: JSON is an sd trace (a `TraceDocument`, or a bare array of
 * its events); text of `host {"host":1}` lines, with or without ShiViz's header, is a ShiViz /
 * GoVector log. Throws an `InputError` saying what was expected otherwise.
 */
export function parseInput(text: string): Diagram {
  const trimmed = text.trimStart()
  if (trimmed === '') throw new InputError('the file is empty')
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let doc: unknown
    try {
      doc = JSON.parse(text)
    } catch (e) {
      throw new InputError(`not valid JSON: ${e instanceof Error ? e.message : String(e)}`)
    }
    return traceToDiagram(Array.isArray(doc) ? { events: doc } : doc)
  }
  if (looksLikeShiViz(text)) return shivizToDiagram(text)
  throw new InputError(
    'this is neither an sd trace (JSON with an `events` array, from `sd run <scenario> --trace FILE`) nor a ShiViz / GoVector log (`host {"host":1}` lines)',
  )
}

/** Which format a text is in, without parsing it whole. */
export function detectFormat(text: string): 'sd-trace' | 'shiviz' | undefined {
  const trimmed = text.trimStart()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return 'sd-trace'
  return looksLikeShiViz(text) ? 'shiviz' : undefined
}
