/**
 * Names the REST API used before 0.4, when "holder" meant the booking's
 * person and a process's runner was its `person`. Each answer of
 * /api/v1 carries them beside the new names for this version, so that a
 * script written against the old ones keeps working; docs/api.md
 * ("Deprecated names") and the OpenAPI description say which. The live
 * wire changed outright (LIVE_FORMAT_VERSION 4: an old page reloads).
 */
export const DEPRECATED_NAMES: ReadonlyArray<readonly [now: string, before: string]> = [
  ["bookedBy", "holder"],
  ["bookedByName", "holderName"],
  ["bookedById", "holderId"],
  ["bookedByUsername", "holderUsername"],
  ["bookedUntil", "holderUntil"],
  ["bookers", "holders"],
];

/** A copy of a JSON answer with every renamed field also under its old name (a process's `runner` also as `person`). */
export function withDeprecatedNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withDeprecatedNames);
  if (value === null || typeof value !== "object") return value;
  const object: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) object[key] = withDeprecatedNames(field);
  for (const [now, before] of DEPRECATED_NAMES) if (now in object && !(before in object)) object[before] = object[now];
  if ("pid" in object && "runner" in object && !("person" in object)) object.person = object.runner;
  return object;
}

/** The response with its JSON body given the old names too; any other response as it is. */
export async function answerWithDeprecatedNames(response: Response): Promise<Response> {
  if (!response.headers.get("content-type")?.includes("application/json") || response.body === null) return response;
  const text = await response.text();
  if (!/"(bookedBy|bookedUntil|bookers|runner)/.test(text)) {
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(withDeprecatedNames(JSON.parse(text))), { status: response.status, statusText: response.statusText, headers });
}
