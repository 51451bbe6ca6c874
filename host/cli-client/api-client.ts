import { formatTime } from "@/host/cli-client/format-output";
import * as z from "zod";
import type { ClientConfig } from "@/host/cli-client/client-config";
import { APIError } from "@/host/cli-client/cli-errors";

/** The `{ error: { code, message } }` shape of every API failure. */
const errorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string(), fields: z.record(z.string(), z.string()).optional() }) });

/**
 * Calls the gpudesk REST API with a personal token. Failures become an
 * APIError carrying the server's own message (a 409 says whose booking is in
 * the way), so the CLI prints that one line.
 */
export async function callApi<T>(config: ClientConfig, method: "GET" | "POST" | "PATCH" | "DELETE", apiPath: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${config.url}${apiPath}`, {
      method,
      headers: {
        authorization: `Bearer ${config.token}`,
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const reason = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
    throw new APIError(0, "unreachable", `Cannot reach ${config.url}: ${reason}`);
  }
  const text = await response.text();
  const json: unknown = text ? safeJson(text) : null;
  if (!response.ok) {
    const parsed = errorBodySchema.safeParse(json);
    if (!parsed.success) throw new APIError(response.status, "http", `${method} ${apiPath}: HTTP ${response.status}`);
    const { code, message, fields } = parsed.data.error;
    throw new APIError(response.status, code, refusalText(message, fields));
  }
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** An ISO time as the API writes it, seconds and milliseconds optional. */
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/** Field messages said after a refusal: more would be a wall of text (the rest: "and 3 more"). */
const DETAILS_SHOWN = 2;

/**
 * A refusal as a person reads it in a terminal: the server's sentence and at
 * most two of its field messages, on one or two lines, times in this
 * machine's zone ("2026-12-07 15:04 +01:00", not "2026-12-07T14:04:00.000Z").
 */
export function refusalText(message: string, fields?: Record<string, string>): string {
  const local = (text: string) => text.replace(ISO_TIME, (iso) => formatTime(iso));
  const details = fields ? Object.entries(fields).filter(([, fieldMessage]) => fieldMessage !== message) : [];
  const shown = details.slice(0, DETAILS_SHOWN).map(([field, fieldMessage]) => `${field}: ${local(fieldMessage)}`);
  if (details.length > DETAILS_SHOWN) shown.push(`and ${details.length - DETAILS_SHOWN} more`);
  const first = local(message).replace(/\s*\n\s*/g, " ");
  return shown.length > 0 ? `${first}\n  ${shown.join("; ").replace(/\s*\n\s*/g, " ")}` : first;
}
