import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AlertView } from "@/lib/alerts";
import type { GpuReconciliation } from "@/lib/attribution";

/** Just enough of a socket.io client socket: handlers by event, and `connected`. */
class FakeSocket {
  handlers = new Map<string, Set<(...args: unknown[]) => void>>();
  connected = false;
  emitted: string[] = [];
  on(event: string, handler: (...args: unknown[]) => void) {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(handler);
    return this;
  }
  off(event: string, handler: (...args: unknown[]) => void) {
    this.handlers.get(event)?.delete(handler);
    return this;
  }
  emit(event: string) {
    this.emitted.push(event);
    return this;
  }
  fromServer(event: string, ...args: unknown[]) {
    for (const handler of this.handlers.get(event) ?? []) handler(...args);
  }
  listenerCount() {
    return [...this.handlers.values()].reduce((sum, set) => sum + set.size, 0);
  }
}

let socket: FakeSocket;
vi.mock("@/lib/live-socket", () => ({ getLiveSocket: () => socket }));

const state = (value: GpuReconciliation["state"]): GpuReconciliation => ({ state: value, reservationId: null, holder: null, processes: [], problem: null });
const alert = (id: string, closedAt: string | null = null) => ({ id, closedAt }) as AlertView;

describe("the display's GPU states", () => {
  beforeEach(() => {
    vi.resetModules();
    socket = new FakeSocket();
  });

  it("take each snapshot whole, merge deltas, and stop listening when released", async () => {
    const store = await import("@/lib/display-gpu-states");
    const release = store.retainDisplayGpuStates();
    const releaseAgain = store.retainDisplayGpuStates();
    expect(socket.listenerCount()).toBe(2);
    socket.fromServer("fleet:snapshot", { gpuStates: { a: state("free"), gone: state("free") } });
    socket.fromServer("fleet:delta", { gpuStates: { a: state("conflict") } });
    expect(store.getDisplayGpuStates()).toEqual({ a: state("conflict"), gone: state("free") });
    // A reconnect's snapshot drops GPUs that are no longer there.
    socket.fromServer("fleet:snapshot", { gpuStates: { a: state("free") } });
    expect(Object.keys(store.getDisplayGpuStates())).toEqual(["a"]);
    // From a server that does not reconcile: nothing, and the display derives the states itself.
    socket.fromServer("fleet:snapshot", {});
    expect(store.getDisplayGpuStates()).toEqual({});

    release();
    release();
    expect(socket.listenerCount()).toBe(2);
    releaseAgain();
    expect(socket.listenerCount()).toBe(0);
  });

  it("asks for the states when the socket's snapshot already went by", async () => {
    socket.connected = true;
    const store = await import("@/lib/display-gpu-states");
    store.retainDisplayGpuStates();
    expect(socket.emitted).toEqual(["gpu:states"]);
  });
});

describe("the display's open alert count", () => {
  beforeEach(() => {
    vi.resetModules();
    socket = new FakeSocket();
  });

  it("is unknown until the server sends alerts (never, for a display token), then follows opens and closes", async () => {
    const store = await import("@/lib/display-alerts");
    const release = store.retainOpenAlertCount();
    expect(store.getOpenAlertCount()).toBeNull();
    // Updates before a snapshot cannot be counted against anything.
    socket.fromServer("alerts:update", { event: "opened", alert: alert("x") });
    expect(store.getOpenAlertCount()).toBeNull();

    socket.fromServer("alerts:snapshot", { alerts: [alert("a"), alert("b"), alert("c", "2026-12-01T10:00:00Z")] });
    expect(store.getOpenAlertCount()).toBe(2);
    socket.fromServer("alerts:update", { event: "opened", alert: alert("d") });
    socket.fromServer("alerts:update", { event: "acknowledged", alert: alert("a") });
    socket.fromServer("alerts:update", { event: "closed", alert: alert("b", "2026-12-01T10:01:00Z") });
    expect(store.getOpenAlertCount()).toBe(2);

    release();
    expect(socket.listenerCount()).toBe(0);
    expect(store.getOpenAlertCount()).toBeNull();
  });
});
