import { CLIENT_PROTO_HEADER, requestOrigin } from "@/server/auth/request-origin";
import { env } from "@/server/core/env";
import { AppError } from "@/server/core/errors";
import { refuseUntypeable, refuseUntypeableQuery } from "@/server/core/refuse-untypeable";
import { signInPlug } from "@/server/auth/sign-in-plug";

/**
 * The only better-auth endpoints a browser may reach, by method. gpudesk
 * signs in by username; accounts, roles, names and passwords are changed by
 * admins through /api/v1/users (audited, with gpudesk's rules), so
 * update-user, the e-mail sign-in (no per-account throttle), the admin
 * plugin's endpoints (impersonation among them) and any endpoint a future
 * better-auth adds stay closed: an allowlist, not a blocklist.
 */
const OPEN_ENDPOINTS: Record<string, string[]> = {
  "/api/auth/sign-in/username": ["POST"],
  "/api/auth/sign-out": ["POST"],
  "/api/auth/get-session": ["GET"],
};

/** With OIDC plugged in: starting a sign-in at the provider, and the provider's way back (a form post with response_mode=form_post). */
function oidcEndpoints(providerIds: readonly string[]): Record<string, string[]> {
  const endpoints: Record<string, string[]> = { "/api/auth/sign-in/social": ["POST"] };
  for (const id of providerIds) endpoints[`/api/auth/callback/${id}`] = ["GET", "POST"];
  return endpoints;
}

/**
 * Checks that a request to /api/auth may go on and rebuilds it with the URL
 * the browser used (scheme and Host), which better-auth takes as its base URL
 * and trusted origin. `secure`: the browser talks HTTPS, so cookies are Secure.
 */
export async function authRequest(request: Request): Promise<{ forwarded: Request; secure: boolean }> {
  const url = new URL(request.url);
  const path = url.pathname.replace(/\/+$/, "");
  const config = env();
  const methods = OPEN_ENDPOINTS[path] ?? (config.GPUDESK_OIDC_ISSUER ? oidcEndpoints(signInPlug(config)?.providerIds ?? [])[path] : undefined);
  if (!methods?.includes(request.method.toUpperCase())) throw new AppError("not_found", "No such endpoint");
  const origin = requestOrigin(request.headers);
  if (!origin) throw new AppError("bad_request", "The Host header is missing or malformed");
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  // The sign-in's username (before any throttle counts it), a provider's callback parameters: never NUL into the database.
  refuseUntypeableQuery(url.searchParams);
  if (body) refuseUntypeableBody(request.headers.get("content-type") ?? "", new TextDecoder().decode(body));
  const forwarded = new Request(`${origin}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
  return { forwarded, secure: request.headers.get(CLIENT_PROTO_HEADER) === "https" };
}

/**
 * better-auth's sign-in answers `{ redirect, token, user }`: the session
 * token is in the HttpOnly cookie, and a copy in the JSON would be readable
 * by any script on the page. The answer keeps everything but that copy.
 */
export async function withoutSessionToken(request: Request, response: Response): Promise<Response> {
  if (!new URL(request.url).pathname.replace(/\/+$/, "").endsWith("/sign-in/username")) return response;
  if (!response.headers.get("content-type")?.includes("application/json")) return response;
  const body = (await response.json()) as Record<string, unknown> | null;
  if (body && typeof body === "object") delete body.token;
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers });
}

/** A JSON or form body's fields; anything else is better-auth's to refuse. */
function refuseUntypeableBody(contentType: string, text: string): void {
  if (contentType.includes("application/x-www-form-urlencoded")) return refuseUntypeableQuery(new URLSearchParams(text));
  if (!contentType.includes("json")) return;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return;
  }
  refuseUntypeable(json);
}
