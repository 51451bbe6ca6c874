/**
 * Calls to /api/auth through its route handler, as a browser reaches it
 * behind the custom server (which stamps the client address and scheme
 * headers), for the single sign-on tests. Each call comes from an address
 * of its own (unless `ip` names one), so that the per-address limit decides
 * only the tests about it.
 */

export const AUTH_TEST_HOST = "gpudesk.test:3000";
export const AUTH_TEST_ORIGIN = `http://${AUTH_TEST_HOST}`;

type AuthRoute = typeof import("@/app/api/auth/[...all]/route");

let calls = 0;

export function authRouteCall(
  route: AuthRoute,
  path: string,
  init: { method?: "GET" | "POST"; body?: unknown; cookie?: string; ip?: string } = {},
): Promise<Response> {
  calls += 1;
  const method = init.method ?? "POST";
  const request = new Request(`http://localhost:3000/api/auth${path}`, {
    method,
    headers: {
      host: AUTH_TEST_HOST,
      origin: AUTH_TEST_ORIGIN,
      "content-type": "application/json",
      "x-gpudesk-client-ip": init.ip ?? `10.${process.pid % 200}.${(calls / 250) | 0}.${calls % 250}`,
      "x-gpudesk-proto": "http",
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
    body: method === "GET" ? undefined : JSON.stringify(init.body ?? {}),
  });
  return method === "GET" ? route.GET(request) : route.POST(request);
}

/** The cookies a response set, as the browser sends them back. */
export function cookiesOf(response: Response): string {
  return response.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
}

export interface SessionUser {
  id: string;
  username: string;
  name: string;
  role: string;
  unixLogin: string | null;
}

/** Who the session that a response set belongs to (null: none). */
export async function sessionUserOf(route: AuthRoute, response: Response): Promise<SessionUser | null> {
  const session = await authRouteCall(route, "/get-session", { method: "GET", cookie: cookiesOf(response) });
  return ((await session.json()) as { user: SessionUser } | null)?.user ?? null;
}

/**
 * A whole single sign-on through the route handler: gpudesk's start →
 * the provider's pages (signInAtProvider, a browser's part) → gpudesk's
 * callback. Answers the callback's response.
 */
export async function oidcSignInThroughRoute(route: AuthRoute, issuer: string, login: string): Promise<Response> {
  const { signInAtProvider } = await import("@/server/testing/oidc-provider");
  const start = await authRouteCall(route, "/sign-in/social", { body: { provider: "oidc", callbackURL: "/reservations" } });
  if (start.status !== 200) throw new Error(`the sign-in start answered ${start.status}: ${await start.text()}`);
  const { url } = (await start.json()) as { url: string };
  if (!url.startsWith(`${issuer}/`)) throw new Error(`the sign-in start pointed to ${url}, not to the provider ${issuer}`);
  const back = await signInAtProvider(url, login, `${AUTH_TEST_ORIGIN}/api/auth/callback/oidc`);
  return authRouteCall(route, back.slice(AUTH_TEST_ORIGIN.length + "/api/auth".length), { method: "GET", cookie: cookiesOf(start) });
}
