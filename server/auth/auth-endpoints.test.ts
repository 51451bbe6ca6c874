import { beforeAll, describe, expect, it } from "vitest";
import { useTestDatabase } from "@/server/testing/test-db";
import { uniqueName } from "@/server/testing/factories";

/**
 * /api/auth through its route handler, as a browser reaches it behind the
 * custom server (which stamps the client address and scheme headers).
 */

const HOST = "gpudesk.test:3000";
const ORIGIN = `http://${HOST}`;
let route: typeof import("@/app/api/auth/[...all]/route");
let ipCounter = 0;

function authCall(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  ipCounter += 1;
  const method = init.method ?? "POST";
  const request = new Request(`http://localhost:3000/api/auth${path}`, {
    method,
    headers: {
      host: HOST,
      origin: ORIGIN,
      "content-type": "application/json",
      "x-gpudesk-client-ip": `10.9.${ipCounter % 250}.${(ipCounter / 250) | 0}`,
      "x-gpudesk-proto": "http",
      ...init.headers,
    },
    body: method === "GET" ? undefined : JSON.stringify(init.body ?? {}),
  });
  return method === "GET" ? route.GET(request) : route.POST(request);
}

function cookieHeader(response: Response): string {
  return response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]).join("; ");
}

async function newMember(): Promise<{ username: string; password: string; cookie: string }> {
  const { createUser } = await import("@/server/auth/users");
  const username = uniqueName("auth").replace(/-/g, "_");
  const password = `${username}-password`;
  await createUser({ username, password });
  const response = await authCall("/sign-in/username", { body: { username, password } });
  expect(response.status).toBe(200);
  return { username, password, cookie: cookieHeader(response) };
}

beforeAll(async () => {
  await useTestDatabase();
  route = await import("@/app/api/auth/[...all]/route");
});

describe("session cookies follow the scheme the browser uses", () => {
  it("plain HTTP on a LAN name: a cookie without Secure and without the __Secure- prefix", async () => {
    const { cookie } = await newMember();
    expect(cookie).toMatch(/^gpudesk\.session_token=/);
    const response = await authCall("/sign-in/username", { body: { username: "nobody_here", password: "x".repeat(12) } });
    expect(response.headers.getSetCookie().some((line) => /;\s*secure/i.test(line))).toBe(false);
  });

  it("the sign-in answer sets the session cookie but holds no copy of the token for page scripts", async () => {
    const { createUser } = await import("@/server/auth/users");
    const username = uniqueName("notoken").replace(/-/g, "_");
    await createUser({ username, password: "no-token-password" });
    const response = await authCall("/sign-in/username", { body: { username, password: "no-token-password" } });
    expect(response.status).toBe(200);
    const cookie = response.headers.getSetCookie().find((line) => line.includes("session_token="))!;
    const token = decodeURIComponent(cookie.split(";")[0].split("=")[1]).split(".")[0];
    const text = await response.text();
    expect(token.length).toBeGreaterThan(10);
    expect(text).not.toContain(token);
    expect(JSON.parse(text)).not.toHaveProperty("token");
    expect(JSON.parse(text).user.username).toBe(username);
  });

  it("a password of control characters alone is refused", async () => {
    const { createUser } = await import("@/server/auth/users");
    for (const password of ["\u0000".repeat(12), "\u0007\u001b\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0008", "\u200b".repeat(12)]) {
      await expect(createUser({ username: uniqueName("nul").replace(/-/g, "_"), password })).rejects.toThrow();
    }
  });

  it("HTTPS (as the custom server stamps it behind a trusted proxy): Secure and __Secure-, and the session reads back", async () => {
    const { createUser } = await import("@/server/auth/users");
    const username = uniqueName("tls").replace(/-/g, "_");
    await createUser({ username, password: "tls-password-1" });
    const response = await authCall("/sign-in/username", {
      body: { username, password: "tls-password-1" },
      headers: { origin: `https://${HOST}`, "x-gpudesk-proto": "https" },
    });
    expect(response.status).toBe(200);
    const [session] = response.headers.getSetCookie().filter((line) => line.includes("session_token"));
    expect(session).toMatch(/^__Secure-gpudesk\.session_token=/);
    expect(session).toMatch(/;\s*Secure/i);
    const { sessionPrincipal } = await import("@/server/auth/authenticate");
    const principal = await sessionPrincipal(new Headers({ host: HOST, cookie: cookieHeader(response) }));
    expect(principal?.kind === "user" && principal.user.username).toBe(username);
  });
});

describe("only sign-in, sign-out and the session are reachable", () => {
  it("e-mail sign-in is closed (it had no per-account throttle)", async () => {
    const { username } = await newMember();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await authCall("/sign-in/email", { body: { email: `${username}@users.gpudesk.invalid`, password: "wrong-password" } });
      expect(response.status).toBe(404);
      expect((await response.json()).error.code).toBe("not_found");
    }
  });

  it("repeated wrong passwords for one account are answered 429, from any address", async () => {
    const { username } = await newMember();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 7; attempt += 1) {
      statuses.push((await authCall("/sign-in/username", { body: { username, password: "wrong-password" } })).status);
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
  });

  it("the right password after four wrong ones clears the count: five more wrong ones are answered 401", async () => {
    const { username, password } = await newMember();
    const wrong = () => authCall("/sign-in/username", { body: { username, password: "wrong-password" } }).then((r) => r.status);
    for (let attempt = 0; attempt < 4; attempt += 1) expect(await wrong()).toBe(401);
    expect((await authCall("/sign-in/username", { body: { username, password } })).status).toBe(200);
    for (let attempt = 0; attempt < 5; attempt += 1) expect(await wrong()).toBe(401);
    expect(await wrong()).toBe(429);
  });

  it("30 parallel guesses through a trusted proxy are not all evaluated: only the five free attempts are", async () => {
    const { username, password } = await newMember();
    // The member's own sign-in cleared the count; 29 wrong guesses and the right one, at once, each from its own address.
    const guesses = [...Array.from({ length: 29 }, () => "wrong-password"), password];
    const statuses = await Promise.all(guesses.map((guess) => authCall("/sign-in/username", { body: { username, password: guess } }).then((r) => r.status)));
    expect(statuses.filter((status) => status !== 429).length).toBeLessThanOrEqual(5);
  });

  it("a member cannot rename themselves, change their image or impersonate", async () => {
    const { username, cookie } = await newMember();
    const rename = await authCall("/update-user", { body: { name: "Someone Else", username: "admin2", image: "http://evil.example/x.png" }, headers: { cookie } });
    expect(rename.status).toBe(404);
    const impersonate = await authCall("/admin/impersonate-user", { body: { userId: "whoever" }, headers: { cookie } });
    expect(impersonate.status).toBe(404);
    const available = await authCall("/is-username-available", { body: { username } });
    expect(available.status).toBe(404);
    const { db } = await import("@/server/core/db");
    const row = await db().user.findUniqueOrThrow({ where: { username }, select: { name: true, image: true } });
    expect(row).toEqual({ name: username, image: null });
  });

  it("the session endpoint still answers", async () => {
    const { username, cookie } = await newMember();
    const response = await authCall("/get-session", { method: "GET", headers: { cookie } });
    expect(response.status).toBe(200);
    expect((await response.json()).user.username).toBe(username);
  });
});

describe("trusted origins are this host (and GPUDESK_PUBLIC_URL) only", () => {
  it("a page on another port of the same host cannot sign a member out", async () => {
    const { cookie } = await newMember();
    const forged = await authCall("/sign-out", { headers: { cookie, origin: "http://gpudesk.test:4444" } });
    expect(forged.status).toBe(403);
    const { sessionPrincipal } = await import("@/server/auth/authenticate");
    expect(await sessionPrincipal(new Headers({ host: HOST, cookie }))).not.toBeNull();
    const own = await authCall("/sign-out", { headers: { cookie } });
    expect(own.status).toBe(200);
    expect(await sessionPrincipal(new Headers({ host: HOST, cookie }))).toBeNull();
  });
});
