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
    const details = fields ? Object.entries(fields).filter(([, fieldMessage]) => fieldMessage !== message) : [];
    const suffix = details.length > 0 ? ` (${details.map(([field, fieldMessage]) => `${field}: ${fieldMessage}`).join("; ")})` : "";
    throw new APIError(response.status, code, `${message}${suffix}`);
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
