/**
 * The browser's side of the REST API: one call shape for every form, and the
 * server's `{ error: { code, message, fields? } }` turned into a value the
 * form can show rather than an exception it has to catch.
 */

export interface ApiError {
  /** `bad_request`, `unauthorized`, `forbidden`, `not_found`, `conflict`, `internal`, or `network` when no answer came. */
  code: string;
  message: string;
  /** Per-field messages, keyed like the request body ("username", "unixLogin"). */
  fields?: Record<string, string>;
  status: number;
  /** The whole `error` object, for answers that carry more (a booking conflict's `conflicts` and `suggestion`). */
  body?: Record<string, unknown>;
}

export type ApiResult<T> = { ok: true; data: T } | { ok: false; error: ApiError };

function isErrorBody(body: unknown): body is { error: { code: string; message: string; fields?: Record<string, string> } } {
  if (typeof body !== "object" || body === null || !("error" in body)) return false;
  const error = (body as { error: unknown }).error;
  return typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string";
}

/**
 * Sends a JSON request with the session cookie. Never throws: a network
 * failure or an unreadable answer comes back as an error too. A 204 answer
 * gives `data: null`.
 */
export async function apiRequest<T>(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", url: string, body?: unknown): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, error: { code: "network", message: "The server cannot be reached. Check the connection and try again.", status: 0 } };
  }
  const parsed: unknown = response.status === 204 ? null : await response.json().catch(() => undefined);
  if (response.ok && parsed !== undefined) return { ok: true, data: parsed as T };
  if (isErrorBody(parsed)) {
    const { code, message, fields } = parsed.error;
    return { ok: false, error: { code, message, fields, status: response.status, body: parsed.error as Record<string, unknown> } };
  }
  if (response.status === 401) {
    return { ok: false, error: { code: "unauthorized", message: "Your session has ended. Sign in again.", status: 401 } };
  }
  return { ok: false, error: { code: "internal", message: `The server answered ${response.status}. Try again.`, status: response.status } };
}

/** Rows in API answers carry times as ISO strings; this is the shape the pages hold them in. */
export type Serialized<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

/** A server row as the API would answer it, so that a page's first render and its later reloads hold the same shape. */
export function serializeDates<T extends object>(row: T): Serialized<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) out[key] = value instanceof Date ? value.toISOString() : value;
  return out as Serialized<T>;
}
