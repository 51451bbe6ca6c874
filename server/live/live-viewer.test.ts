import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FleetState } from "@/server/fleet/fleet-state";
import { authenticateLiveViewer } from "@/server/live/live-viewer";
import { uniqueName } from "@/server/testing/factories";
import { startLiveServer } from "@/server/testing/live-clients";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * The one check of a `/live` handshake, with real sign-ins and real
 * sockets. Behind a TLS proxy (GPUDESK_TRUST_PROXY=1, X-Forwarded-Proto
 * https, no https GPUDESK_PUBLIC_URL) the browser holds a __Secure- session
 * cookie: the socket must take it as the REST API does. And a session
 * cookie counts only from a page of this host: another port of the same
 * machine (a notebook, a dashboard) is another origin.
 */

const HOST = "gpudesk.lab.example";
const PUBLIC = `https://${HOST}`;
let server: Awaited<ReturnType<typeof startLiveServer>>;
let cookie: string;

beforeAll(async () => {
  process.env.GPUDESK_TRUST_PROXY = "1";
  delete process.env.GPUDESK_PUBLIC_URL;
  await useTestDatabase();
  const { createUser } = await import("@/server/auth/users");
  const { stampClientHeaders } = await import("@/server/auth/request-origin");
  const { env } = await import("@/server/core/env");
  const route = await import("@/app/api/auth/[...all]/route");
  const username = uniqueName("proxied").replace(/-/g, ".");
  await createUser({ username, password: "behind-the-proxy" });
  // What reaches the server from the proxy, stamped as server/index.ts stamps every request.
  const request = {
    headers: { host: HOST, origin: PUBLIC, "content-type": "application/json", "x-forwarded-proto": "https", "x-forwarded-for": "10.9.0.7" } as Record<string, string>,
    socket: { remoteAddress: "127.0.0.1", encrypted: false },
  };
  stampClientHeaders(request, env().GPUDESK_TRUST_PROXY);
  const response = await route.POST(
    new Request(`http://${HOST}/api/auth/sign-in/username`, { method: "POST", headers: request.headers, body: JSON.stringify({ username, password: "behind-the-proxy" }) }),
  );
  expect(response.status).toBe(200);
  cookie = response.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
  expect(cookie).toMatch(/^__Secure-gpudesk\.session_token=/);
  server = await startLiveServer(new FleetState({ offlineAfterMs: 5000, simulated: true }), { tickMs: 3_600_000, flushMs: 20, authenticate: authenticateLiveViewer });
}, 60_000);

afterAll(async () => {
  await server?.close();
  delete process.env.GPUDESK_TRUST_PROXY;
});

function outcome(headers: Record<string, string>): Promise<string> {
  const { socket } = server.connect({}, { headers });
  return new Promise((resolve) => {
    socket.once("fleet:snapshot", () => resolve("snapshot"));
    socket.once("connect_error", (error) => resolve(error.message));
  });
}

describe("a /live handshake with a session cookie", () => {
  it("takes the signed-in person behind a TLS proxy, with the __Secure- cookie", async () => {
    expect(await outcome({ host: HOST, origin: PUBLIC, cookie })).toBe("snapshot");
  });

  it("refuses it from a page of another origin (another port of the same host), as the REST API does", async () => {
    expect(await outcome({ host: HOST, origin: `http://${HOST}:8888`, cookie })).toBe("unauthorized");
    expect(await outcome({ host: HOST, origin: "https://elsewhere.example", cookie })).toBe("unauthorized");
    expect(await outcome({ host: HOST, referer: `http://${HOST}:8888/notebook`, cookie })).toBe("unauthorized");
  });

  it("takes it without Origin (no browser sends a cross-origin request without one), and refuses no cookie", async () => {
    expect(await outcome({ host: HOST, cookie })).toBe("snapshot");
    expect(await outcome({ host: HOST, origin: PUBLIC })).toBe("unauthorized");
  });
});
