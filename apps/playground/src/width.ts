/**
 * Terminal display width. JavaScript's `length` counts UTF-16 units, but a terminal gives an
 * emoji such as ⏰ or 💥 two columns, a CJK ideograph two, and a combining accent none. Columns of
 * the diagram are padded by these rules, so rows line up whatever symbols a cell holds.
 */

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' })

/** Emoji drawn as pictures by default, and keycaps or symbols that asked for it with VS16 (U+FE0F). */
const EMOJI = /\p{Emoji_Presentation}|\p{Emoji}\uFE0F|\p{Regional_Indicator}/u
/** Clusters that draw nothing: control and format characters, or marks with no base. */
const INVISIBLE = /^[\p{Cc}\p{Cf}\p{M}]+$/u

/** East Asian Wide and Fullwidth blocks (the emoji among them are caught by EMOJI). */
const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f], // Hangul Jamo initials
  [0x2e80, 0x303e], // CJK radicals, Kangxi, CJK symbols and punctuation
  [0x3041, 0x33ff], // Kana, Bopomofo, Hangul compatibility, CJK compatibility
  [0x3400, 0x4dbf], // CJK extension A
  [0x4e00, 0x9fff], // CJK unified ideographs
  [0xa000, 0xa4cf], // Yi
  [0xa960, 0xa97f], // Hangul Jamo extended A
  [0xac00, 0xd7a3], // Hangul syllables
  [0xf900, 0xfaff], // CJK compatibility ideographs
  [0xfe10, 0xfe19], // vertical forms
  [0xfe30, 0xfe6f], // CJK compatibility forms, small forms
  [0xff00, 0xff60], // fullwidth forms
  [0xffe0, 0xffe6], // fullwidth signs
  [0x20000, 0x2fffd], // CJK extensions B and later
  [0x30000, 0x3fffd],
]

function isWide(codePoint: number): boolean {
  return WIDE.some(([from, to]) => codePoint >= from && codePoint <= to)
}

/** Columns one grapheme cluster (what the reader sees as one character) takes. */
function clusterWidth(cluster: string): number {
  if (INVISIBLE.test(cluster)) return 0
  if (EMOJI.test(cluster) || isWide(cluster.codePointAt(0)!)) return 2
  return 1
}

/** The grapheme clusters of `text`, each with its width in columns. */
function clusters(text: string): { text: string; width: number }[] {
  return Array.from(segmenter.segment(text), ({ segment }) => ({
    text: segment,
    width: clusterWidth(segment),
  }))
}

/** How many terminal columns `text` takes. */
export function displayWidth(text: string): number {
  let width = 0
  for (const c of clusters(text)) width += c.width
  return width
}

/** `text` padded with spaces to `width` columns (unchanged if already as wide). */
export function padToWidth(text: string, width: number): string {
  const missing = width - displayWidth(text)
  return missing > 0 ? text + ' '.repeat(missing) : text
}

/** `text` cut to at most `width` columns, ending in `…` when something was cut. */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  if (width <= 0) return ''
  let out = ''
  let used = 0
  for (const c of clusters(text)) {
    if (used + c.width > width - 1) break
    out += c.text
    used += c.width
  }
  return `${out.trimEnd()}…`
}

/**
 * `text` broken into lines of at most `width` columns (`laterWidth` after the first line, for a
 * hanging indent), at spaces where possible (a word longer than a line is split) and always at
 * `\n`. At most `maxLines` lines: the last one ends in `…` if text was left over.
 */
export function wrapToWidth(
  text: string,
  width: number,
  maxLines = Number.POSITIVE_INFINITY,
  laterWidth = width,
  /** Break a hyphenated word after a hyphen (diagram cells; not prose, whose names are copied). */
  hyphens = false,
): string[] {
  const widthOf = (line: number) => (line === 0 ? width : laterWidth)
  const lines: string[] = []
  for (const paragraph of text.split('\n')) {
    let rest = paragraph.trim()
    while (rest.length > 0) {
      const room = widthOf(lines.length)
      if (displayWidth(rest) <= room) {
        lines.push(rest)
        break
      }
      const head = headOfWidth(rest, room)
      // Break at the last space if the word after it fits on a line of its own; otherwise split
      // the word where the line ends (a long JSON would leave `▶` alone on its line).
      const space = head.lastIndexOf(' ')
      const word = rest.slice(space + 1).split(' ')[0]!
      // A hyphenated word (`election-started`) may break after a hyphen, as prose does.
      const hyphen = hyphens ? lastHyphenInWord(head) : -1
      const afterHyphen = rest.slice(hyphen + 1).split(/[ -]/)[0]!
      const atSpace = space > 0 && displayWidth(word) <= laterWidth
      const atHyphen = hyphen > 0 && hyphen > space && displayWidth(afterHyphen) <= laterWidth
      // A head that ends where a word does breaks there.
      const cut =
        rest[head.length] === ' '
          ? head.length
          : atHyphen
            ? hyphen + 1
            : atSpace
              ? space
              : head.length
      lines.push(rest.slice(0, cut).trimEnd())
      rest = rest.slice(cut).trimStart()
    }
  }
  if (lines.length <= maxLines) return lines
  const kept = lines.slice(0, maxLines)
  const last = kept.length - 1
  if (last >= 0) {
    const glue = kept[last]?.endsWith('-') ? '' : ' ' // a word broken at its hyphen goes on
    kept[last] = truncateToWidth(`${kept[last]}${glue}${lines[last + 1]}`, widthOf(last))
  }
  return kept
}

/** The last hyphen between two letters of a word (`election-started`; not `--width`), or -1. */
function lastHyphenInWord(head: string): number {
  for (let i = head.length - 2; i > 0; i--)
    if (head[i] === '-' && /\p{L}/u.test(head[i - 1]!) && /\p{L}/u.test(head[i + 1]!)) return i
  return -1
}

/** The longest prefix of `text` (whole clusters, at least one) that fits in `width` columns. */
function headOfWidth(text: string, width: number): string {
  let out = ''
  let used = 0
  for (const c of clusters(text)) {
    if (out && used + c.width > width) break
    out += c.text
    used += c.width
  }
  return out
}

/**
 * `text` made to fit `width` columns for a reader: a line that fits is kept as it is (diagram
 * rows, aligned tables); a longer one is broken between words, its continuation lines indented
 * like it (and past a leading `- ` or `label:  ` column, so a list item or a table entry reads as
 * one). A word is split only when it is wider than a whole line.
 */
export function fitToWidth(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (displayWidth(line) <= width) return [line]
      const indent = hangingIndent(line, width)
      const lead = line.length - line.trimStart().length
      const first = ' '.repeat(lead)
      const rest = ' '.repeat(indent)
      const wrapped = wrapToWidth(
        line.slice(lead),
        width - lead,
        Number.POSITIVE_INFINITY,
        width - indent,
      )
      return wrapped.map((part, i) => (i === 0 ? first : rest) + part)
    })
    .join('\n')
}

/** Where a long line's continuation starts: under its text, past a bullet or a gap of 2+ spaces. */
function hangingIndent(line: string, width: number): number {
  const lead = line.length - line.trimStart().length
  const bullet = /^- /.test(line.slice(lead)) ? 2 : 0
  const column = /^(\s*\S.*?\S {2,})\S/.exec(line)?.[1]
  const indent = column !== undefined ? displayWidth(column) : lead + bullet
  // A continuation needs room for words; a column too far right is given up.
  return indent <= width / 2 ? indent : lead + bullet
}
