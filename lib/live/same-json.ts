/**
 * Whether two JSON-like values (plain objects, arrays, strings, numbers,
 * booleans, null) would be sent alike: what `JSON.stringify(a) ===
 * JSON.stringify(b)` answers for change detection, without building the two
 * strings (per GPU per second, they were garbage for the collector). Keys
 * whose value is undefined count as absent, as in JSON; key order does not
 * matter.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let count = 0;
  for (const key in left) {
    if (!Object.hasOwn(left, key) || left[key] === undefined) continue;
    count += 1;
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
  }
  for (const key in right) if (Object.hasOwn(right, key) && right[key] !== undefined) count -= 1;
  return count === 0;
}
