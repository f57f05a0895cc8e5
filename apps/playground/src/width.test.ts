import { describe, expect, it } from 'vitest'
import { displayWidth, padToWidth, truncateToWidth, wrapToWidth } from './width.js'

describe('displayWidth', () => {
  it.each([
    ['', 0],
    ['node 1', 6],
    ['⏰ next', 7], // the alarm clock is an emoji: two columns, though one UTF-16 unit
    ['💥 crash', 8], // two UTF-16 units, two columns
    ['★ ▶ ‼ → ← │ ✕ ↻', 15], // text-presentation symbols: one column each
    ['e\u0301', 1], // e + combining acute accent
    ['\u0301', 0], // a lone combining mark
    ['a\u200bb', 2], // zero-width space
    ['日本', 4], // CJK ideographs are wide
    ['ｘ', 2], // fullwidth latin
    ['❤\uFE0F', 2], // a text symbol asking for emoji presentation
    ['👨‍👩‍👧', 2], // one family emoji joined with ZWJ
    ['🇫🇷', 2], // one flag: two regional indicators
    ['👍🏽', 2], // emoji with a skin tone modifier
  ])('%j takes %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width)
  })
})

describe('padding, truncation and wrapping by columns', () => {
  it('pads to the display width, not the UTF-16 length', () => {
    expect(padToWidth('⏰ a', 6)).toBe('⏰ a  ')
    expect(displayWidth(padToWidth('💥 crash', 12))).toBe(12)
    expect(padToWidth('too long', 3)).toBe('too long')
  })

  it('truncates whole clusters and marks the cut', () => {
    expect(truncateToWidth('short', 5)).toBe('short')
    expect(truncateToWidth('shorter', 5)).toBe('shor…')
    // The emoji does not fit in the one column left before the ellipsis: it is not split.
    expect(truncateToWidth('ab💥cd', 4)).toBe('ab…')
    expect(displayWidth(truncateToWidth('⏰⏰⏰⏰', 5))).toBeLessThanOrEqual(5)
  })

  it('wraps at spaces, splits long words, and limits the number of lines', () => {
    expect(wrapToWidth('hello V=[1,0,0] m1.1', 10)).toEqual(['hello', 'V=[1,0,0]', 'm1.1'])
    // The word after the space would not fit on a line either: it is split, not moved down.
    expect(wrapToWidth('▶ {"type":"broadcast"}', 10)).toEqual(['▶ {"type":', '"broadcast', '"}'])
    // A line break is always honoured; lines past the limit are cut with an ellipsis.
    expect(wrapToWidth('note\n{"raw":1}', 20)).toEqual(['note', '{"raw":1}'])
    expect(wrapToWidth('a\nb\nc', 20, 2)).toEqual(['a', 'b c'])
    expect(wrapToWidth('a\nbbbbbb\nc', 6, 2)).toEqual(['a', 'bbbbb…'])
    // A hanging indent: later lines are narrower.
    expect(wrapToWidth('abcdef ghijkl mnopqr', 6, 3, 4)).toEqual(['abcdef', 'ghij', 'kl…'])
    expect(wrapToWidth('{"type":"broadcast"}', 8)).toEqual(['{"type":', '"broadca', 'st"}'])
    expect(wrapToWidth('one two three four', 9, 2)).toEqual(['one two', 'three fo…'])
    for (const line of wrapToWidth('⏰ ⏰⏰⏰⏰ 💥💥💥', 5))
      expect(displayWidth(line)).toBeLessThanOrEqual(5)
  })
})
