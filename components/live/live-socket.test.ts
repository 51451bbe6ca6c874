import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

type AuthFn = (send: (data: object) => void) => void;
const created: { namespace: string; options: { autoConnect?: boolean; auth?: AuthFn } }[] = [];
vi.mock("socket.io-client", () => ({
  io: (namespace: string, options: { autoConnect?: boolean; auth?: AuthFn }) => {
    created.push({ namespace, options });
    return { namespace, on: () => undefined, connected: false, connect: vi.fn(), disconnect: vi.fn(), emit: vi.fn() };
  },
}));

/** What the socket would send in its handshake on the next (re)connect. */
function handshakeAuth(): object {
  let sent: object = {};
  created[0].options.auth?.((data) => (sent = data));
  return sent;
}

describe("live socket", () => {
  beforeEach(() => {
    vi.resetModules();
    created.length = 0;
    vi.stubGlobal("window", {});
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("is one unconnected socket per tab that sends its format, and no token unless a display sets one", async () => {
    const { getLiveSocket, setLiveSocketDisplayScope, setLiveSocketToken } = await import("@/components/live/live-socket");
    const { LIVE_FORMAT_VERSION: v } = await import("@/lib/live/live-wire");
    expect(getLiveSocket()).toBe(getLiveSocket());
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ namespace: "/live", options: { autoConnect: false } });
    expect(handshakeAuth()).toEqual({ v, fleet: false });

    // Read at every connect, so a token set after the socket exists still counts, and clearing it goes back to the cookie.
    setLiveSocketToken("gpd_disp_abc");
    expect(handshakeAuth()).toEqual({ v, fleet: false, token: "gpd_disp_abc" });
    setLiveSocketToken(null);
    expect(handshakeAuth()).toEqual({ v, fleet: false });
    // The wall display asks for its scope, with its hosts.
    setLiveSocketDisplayScope({ hosts: ["node-a"] });
    expect(handshakeAuth()).toEqual({ v, fleet: false, scope: "display", hosts: ["node-a"] });
    setLiveSocketDisplayScope(null);
    expect(handshakeAuth()).toEqual({ v, fleet: false });
  });

  it("asks for the whole fleet's feed only while the fleet store wants it, and stays connected while anyone holds it", async () => {
    const { getLiveSocket, retainLiveSocket, setLiveSocketFollowsFleet } = await import("@/components/live/live-socket");
    const { LIVE_FORMAT_VERSION: v } = await import("@/lib/live/live-wire");
    const socket = getLiveSocket() as unknown as { connected: boolean; connect: () => void; disconnect: () => void; emit: (event: string) => void };
    setLiveSocketFollowsFleet(true);
    expect(handshakeAuth()).toEqual({ v, fleet: true });
    const releaseFleet = retainLiveSocket();
    const releasePage = retainLiveSocket();
    expect(socket.connect).toHaveBeenCalledTimes(1);
    socket.connected = true;
    // The fleet page leaves, the GPU page stays: the feed stops, the socket does not.
    setLiveSocketFollowsFleet(false);
    releaseFleet();
    expect(socket.emit).toHaveBeenCalledWith("fleet:unfollow");
    expect(socket.disconnect).not.toHaveBeenCalled();
    releasePage();
    releasePage();
    expect(socket.disconnect).toHaveBeenCalledTimes(1);
  });
});
