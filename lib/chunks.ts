/**
 * `items` cut into consecutive parts of at most `size`, in order: for
 * statements with a bound on their parameters (SQLite takes at most 999)
 * or their size.
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  if (!(Number.isInteger(size) && size > 0)) throw new RangeError(`chunk size must be a positive whole number, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
