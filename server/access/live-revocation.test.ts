import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { UserPrincipal } from "@/server/access/principal";
import { FleetState } from "@/server/fleet/fleet-state";
import { setLiveNamespace } from "@/server/access/live-revocation";
import { authenticateLiveViewer } from "@/server/live/live-viewer";
import { uniqueName } from "@/server/testing/factories";
import { startLiveServer, type LiveClient } from "@/server/testing/live-clients";
import { useTestDatabase } from "@/server/testing/test-db";

/**
 * Open `/live` sockets end with the rights they were opened with: revoking
 * a display, disabling a person, changing their role and signing out close
 * them at once, through the very services the admin pages and better-auth
 * call, against a real database and real sockets.
 */

const ORIGIN = "http://gpudesk.test";
let server: Awaited<ReturnType<typeof startLiveServer>>;
let admin: UserPrincipal;

async function signIn(username: string, password: string): Promise<string> {
  const { auth } = await import("@/server/auth/better-auth");
  const response = await auth().handler(
    new Request(`${ORIGIN}/api/auth/sign-in/username`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN, host: "gpudesk.test", "x-gpudesk-client-ip": `10.2.${(Math.random() * 250) | 0}.1` },
      body: JSON.stringify({ username, password }),
    }),
  );
  expect(response.status).toBe(200);
  return response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]).join("; ");
}

async function newMember(role: "member" | "admin" = "member") {
  const { createUser } = await import("@/server/auth/users");
  const username = uniqueName("live").replace(/-/g, ".");
  const password = "a-long-enough-password";
  const user = await createUser({ username, password, role });
  return { user, cookie: await signIn(username, password) };
}

/** Connected and holding its first snapshot (either scope). */
async function connected(auth: { token?: string }, cookie?: string): Promise<LiveClient> {
  const { socket } = server.connect(auth, cookie ? { cookie } : {});
  await new Promise<void>((resolve, reject) => {
    socket.once("fleet:snapshot", () => resolve());
    socket.once("display:snapshot", () => resolve());
    socket.once("connect_error", reject);
  });
  return socket;
}

/** Resolves when the server closes the socket; the deadline only bounds a hung test (a loaded machine runs timers late). */
function closedByServer(socket: LiveClient, withinMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the socket stayed open")), withinMs);
    socket.once("disconnect", (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

/** What a page does after the server closed it (components/live/live-socket.ts): connect once more. */
function reconnect(socket: LiveClient): Promise<"snapshot" | "refused"> {
  return new Promise((resolve) => {
    socket.once("fleet:snapshot", () => resolve("snapshot"));
    socket.once("display:snapshot", () => resolve("snapshot"));
    socket.once("connect_error", () => resolve("refused"));
    socket.connect();
  });
}

beforeAll(async () => {
  await useTestDatabase();
  server = await startLiveServer(new FleetState({ offlineAfterMs: 5000, simulated: true }), {
    tickMs: 3_600_000,
    flushMs: 20,
    authenticate: authenticateLiveViewer,
  });
  setLiveNamespace(server.namespace);
  const { user } = await newMember("admin");
  admin = { kind: "user", via: "session", user: { ...user, role: "admin" } };
});
afterAll(async () => {
  setLiveNamespace(undefined);
  await server?.close();
});

describe("open /live sockets after a change of rights", () => {
  it("close when their display token is revoked, and the display cannot come back", async () => {
    const { createDisplay, revokeDisplay } = await import("@/server/auth/tokens");
    const { token, display } = await createDisplay(uniqueName("wall"));
    const { display: otherDisplay, token: otherToken } = await createDisplay(uniqueName("wall"));
    const wall = await connected({ token });
    const otherWall = await connected({ token: otherToken });
    const closed = closedByServer(wall);
    await revokeDisplay(display.id);
    expect(await closed).toBe("io server disconnect");
    expect(await reconnect(wall)).toBe("refused");
    expect(otherWall.connected).toBe(true);
    expect(otherDisplay.id).not.toBe(display.id);
  });

  it("close when their personal token is revoked, and that token cannot come back; the person's other token stays", async () => {
    const { createPersonalToken, revokePersonalToken } = await import("@/server/auth/tokens");
    const { user } = await newMember();
    const revoked = await createPersonalToken(user.id, "script");
    const kept = await createPersonalToken(user.id, "other script");
    const script = await connected({ token: revoked.token });
    const other = await connected({ token: kept.token });
    const closed = closedByServer(script);
    await revokePersonalToken(revoked.summary.id, admin);
    expect(await closed).toBe("io server disconnect");
    expect(await reconnect(script)).toBe("refused");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(other.connected).toBe(true);
  });

  it("close when the person is disabled, on every page they have open", async () => {
    const { updateUser } = await import("@/server/auth/users");
    const { user, cookie } = await newMember();
    const pages = [await connected({}, cookie), await connected({}, cookie)];
    const closed = pages.map((page) => closedByServer(page));
    await updateUser(user.id, { disabled: true }, admin);
    expect(await Promise.all(closed)).toEqual(["io server disconnect", "io server disconnect"]);
    expect(await reconnect(pages[0])).toBe("refused");
  });

  it("close on a role change, and come back in the new role's scope", async () => {
    const { updateUser } = await import("@/server/auth/users");
    const { createPersonalToken } = await import("@/server/auth/tokens");
    const { user } = await newMember();
    const { token } = await createPersonalToken(user.id, "live test");
    const page = await connected({ token });
    const closed = closedByServer(page);
    await updateUser(user.id, { role: "admin" }, admin);
    expect(await closed).toBe("io server disconnect");
    expect(await reconnect(page)).toBe("snapshot");
    // A change of name alone leaves the pages alone.
    await updateUser(user.id, { name: "Renamed Person" }, admin);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(page.connected).toBe(true);
  });

  it("close on an admin's password reset, and the person's tokens neither come back nor call the API until they chose their own", async () => {
    const { updateUser } = await import("@/server/auth/users");
    const { createPersonalToken } = await import("@/server/auth/tokens");
    const { requireUser, requireViewer } = await import("@/server/auth/guard");
    const { user } = await newMember();
    const { token } = await createPersonalToken(user.id, "script");
    const call = (path: string) => new Request(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${token}`, host: "gpudesk.test" } });
    expect((await requireUser(call("/api/v1/reservations"))).user.id).toBe(user.id);
    const script = await connected({ token });
    const closed = closedByServer(script);
    await updateUser(user.id, { password: "temporary-password-1" }, admin);
    expect(await closed).toBe("io server disconnect");
    expect(await reconnect(script)).toBe("refused");
    await expect(requireUser(call("/api/v1/reservations"))).rejects.toMatchObject({ code: "password_change_required", status: 403 });
    await expect(requireViewer(call("/api/v1/fleet"))).rejects.toMatchObject({ code: "password_change_required" });
    // Seeing who they are stays open, as for a session.
    expect((await requireUser(call("/api/v1/me"))).user.mustChangePassword).toBe(true);
    const { db } = await import("@/server/core/db");
    await db().user.update({ where: { id: user.id }, data: { mustChangePassword: false } });
    expect((await requireUser(call("/api/v1/reservations"))).user.id).toBe(user.id);
  });

  it("close the signed-out browser's sockets, not those of the person's other sessions", async () => {
    const { auth } = await import("@/server/auth/better-auth");
    const { user, cookie } = await newMember();
    const otherCookie = await signIn(user.username, "a-long-enough-password");
    const leaving = await connected({}, cookie);
    const staying = await connected({}, otherCookie);
    const closed = closedByServer(leaving);
    const response = await auth().handler(
      new Request(`${ORIGIN}/api/auth/sign-out`, { method: "POST", headers: { cookie, origin: ORIGIN, host: "gpudesk.test", "content-type": "application/json" }, body: "{}" }),
    );
    expect(response.status).toBe(200);
    expect(await closed).toBe("io server disconnect");
    expect(await reconnect(leaving)).toBe("refused");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(staying.connected).toBe(true);
  });
});
