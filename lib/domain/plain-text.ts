import * as z from "zod";

/**
 * Characters no one types into a text field: NUL (U+0000, which PostgreSQL
 * cannot store in text at all) and the other C0 controls but tab, line feed
 * and carriage return, DEL and the C1 controls (U+0080 to U+009F). A text
 * input that holds one is refused with 400 naming the field, rather than
 * stored (SQLite) or answered with a 500 (PostgreSQL).
 */
const UNTYPEABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** What a form and the API say about such a field. */
export const UNTYPEABLE_MESSAGE = "Contains a control character (such as U+0000) that text may not hold";

export function hasUntypeable(text: string): boolean {
  return UNTYPEABLE.test(text);
}

/**
 * `z.string()` for a text input: the same parameters, refusing what
 * hasUntypeable finds. The request schemas build their strings from it, so
 * a form shows the refusal next to its field and the API names the field.
 */
export function text(params?: Parameters<typeof z.string>[0]) {
  return z.string(params).refine((value) => !hasUntypeable(value), UNTYPEABLE_MESSAGE);
}

/**
 * The first text anywhere in a request's JSON, query or path parameters
 * (values and keys, at any depth) that holds such a character, as the
 * field's path the way field errors name it ("parts.0.host"), or null.
 */
export function findUntypeable(value: unknown, path: readonly (string | number)[] = []): string | null {
  if (typeof value === "string") return hasUntypeable(value) ? fieldPath(path) : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findUntypeable(item, [...path, index]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (hasUntypeable(key)) return fieldPath(path);
      const found = findUntypeable(item, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}

const fieldPath = (path: readonly (string | number)[]) => path.join(".") || "_";
