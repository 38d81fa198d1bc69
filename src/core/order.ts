/** The one comparator for sorting by strings, numbers or bigints (no locale: byte order, as Kafka's tools list). */
export function compare<T extends string | number | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Compares by a key: `xs.sort(by(x => x.group))`. */
export const by =
  <X, K extends string | number | bigint>(key: (x: X) => K) =>
  (a: X, b: X): number =>
    compare(key(a), key(b))
