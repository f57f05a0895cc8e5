/**
 * In-place insertion sort (`sort` beyond 32 items), stable, for the short arrays sorted once per explored state (events in
 * flight, choices, an object's keys): `Array.prototype.sort` allocates a work area on every call,
 * and at millions of states that garbage is most of what the collector does.
 */
export function sortSmall<T>(items: T[], compare: (a: T, b: T) => number): T[] {
  if (items.length > 32) return items.sort(compare) // quadratic beyond a few
  for (let i = 1; i < items.length; i++) {
    const item = items[i]!
    let j = i - 1
    while (j >= 0 && compare(items[j]!, item) > 0) {
      items[j + 1] = items[j]!
      j--
    }
    items[j + 1] = item
  }
  return items
}

/** Strings ascending by code unit, as `sort()` with no comparator. */
export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
