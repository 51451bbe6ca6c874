/**
 * Calls to /api/auth through its route handler, as a browser reaches it
 * behind the custom server (which stamps the client address and scheme
 * headers), for the single sign-on tests. Each call comes from an address
 * of its own, so that the per-address limit never decides a test.
 */

export const AUTH_TEST_HOST = "gpudesk.test:3000";
export const AUTH_TEST_ORIGIN = `http://${AUTH_TEST_HOST}`;

type AuthRoute = typeof import("@/app/api/auth/[...all]/route");

let calls = 0;

export function authRouteCall(
  route: AuthRoute,
  path: string,
  init: { method?: "GET" | "POST"; body?: unknown; cookie?: string } = {},
): Promise<Response> {
  calls += 1;
  const method = init.method ?? "POST";
  const request = new Request(`http://localhost:3000/api/auth${path}`, {
    method,
    headers: {
      host: AUTH_TEST_HOST,
      origin: AUTH_TEST_ORIGIN,
      "content-type": "application/json",
      "x-gpudesk-client-ip": `10.${process.pid % 200}.${(calls / 250) | 0}.${calls % 250}`,
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
