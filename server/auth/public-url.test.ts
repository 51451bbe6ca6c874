import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Behind a TLS proxy that does not say X-Forwarded-Proto (or without
 * GPUDESK_TRUST_PROXY), an https GPUDESK_PUBLIC_URL alone makes cookies
 * Secure, and it is the one origin trusted besides the request's own.
 */

const PUBLIC = "https://gpudesk.lab.example";
let route: typeof import("@/app/api/auth/[...all]/route");
let username: string;

function post(path: string, body: unknown, headers: Record<string, string>) {
  return route.POST(
    new Request(`http://localhost:3000/api/auth${path}`, {
      method: "POST",
      headers: { host: "gpudesk.lab.example", "content-type": "application/json", "x-gpudesk-client-ip": "10.7.0.1", "x-gpudesk-proto": "http", ...headers },
      body: JSON.stringify(body),
    }),
  );
}

beforeAll(async () => {
  process.env.GPUDESK_PUBLIC_URL = PUBLIC;
  await useTestDatabase();
  const { createUser } = await import("@/server/auth/users");
  username = "publicurl";
  await createUser({ username, password: "public-url-password" });
  route = await import("@/app/api/auth/[...all]/route");
});

describe("with an https GPUDESK_PUBLIC_URL", () => {
  it("sets Secure, __Secure- cookies and trusts the public origin", async () => {
    const response = await post("/sign-in/username", { username, password: "public-url-password" }, { origin: PUBLIC });
    expect(response.status).toBe(200);
    const [session] = response.headers.getSetCookie().filter((line) => line.includes("session_token"));
    expect(session).toMatch(/^__Secure-gpudesk\.session_token=.*;\s*Secure/i);
    const cookie = response.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
    expect((await post("/sign-out", {}, { cookie, origin: "https://gpudesk.lab.example:8443" })).status).toBe(403);
    expect((await post("/sign-out", {}, { cookie, origin: PUBLIC })).status).toBe(200);
  });
});
