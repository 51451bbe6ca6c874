// The tables print local times: pinned to UTC here, other zones in format-time.test.ts.
process.env.TZ = "UTC";
import { describe, expect, it } from "vitest";
import type { FleetSnapshot, LiveGpu } from "@/lib/live/live";
import { launchSettings } from "@/lib/domain/launch-settings";
import type { BookingView } from "@/lib/domain/booking-types";
import { bookedHostRunsHere, bookingRequest, checkRunHost, withLocalHost } from "@/host/cli-client/client-commands";
import { bookedLine, exportLines, type FleetView, formatBooking, formatIdleLines, formatBookingList, formatStatus, formatTable, formatWhois, releasedLine } from "@/host/cli-client/format-output";
import { localGpuHost, pickLocalBooking, sameHost } from "@/host/cli-client/local-booking";
import { exitCodeOf } from "@/host/cli-client/run-child";

const NOW = Date.parse("2026-11-30T10:00:00Z");

function gpu(index: number, overrides: Partial<LiveGpu> = {}): LiveGpu {
  return {
    hostId: "h1",
    hostName: "node-a",
    sampledAt: "2026-11-30T10:00:00Z",
    processes: [],
    index,
    uuid: `GPU-${index}`,
    name: "NVIDIA H100 80GB HBM3",
    pciBusId: null,
    memoryTotalMiB: 81559,
    memoryUsedMiB: 1024,
    utilizationGpuPct: 12.4,
    utilizationMemoryPct: null,
    temperatureC: null,
    powerDrawW: null,
    powerLimitW: null,
    fanSpeedPct: null,
    smClockMHz: null,
    pstate: null,
    migMode: null,
    eccErrorsUncorrected: null,
    ...overrides,
  };
}

const alice = { id: "u1", username: "alice", name: "Alice A" };

const snapshot: FleetSnapshot = {
  serverTime: "2026-11-30T10:00:00Z",
  simulated: true,
  hosts: [{ id: "h1", name: "node-a", simulated: true, online: true, lastSeenAt: null, driverVersion: null, cudaVersion: null, gpuUuids: ["GPU-0", "GPU-1"] }],
  gpus: [
    gpu(1, { utilizationGpuPct: null, memoryUsedMiB: 0 }),
    gpu(0, {
      processes: [
        {
          gpuUuid: "GPU-0",
          pid: 4711,
          name: "python",
          usedMemoryMiB: 2048,
          user: "alice",
          command: null,
          startedAt: "2026-11-30T09:15:00Z",
          container: null,
          slurmJobId: null,
          reservationId: "r1",
        },
      ],
    }),
  ],
  sparklines: {},
  bookings: [
    { reservationId: "r1", hostId: "h1", hostName: "node-a", gpus: [{ uuid: "GPU-0", index: 0 }], bookedBy: alice, startsAt: "2026-11-30T09:00:00Z", endsAt: "2026-11-30T12:00:00Z", purpose: "llm eval" },
    { reservationId: "r2", hostId: "h1", hostName: "node-a", gpus: [{ uuid: "GPU-1", index: 1 }], bookedBy: alice, startsAt: "2026-11-30T11:00:00Z", endsAt: "2026-11-30T12:00:00Z", purpose: "later" },
  ],
};

function booking(overrides: Partial<BookingView> = {}): BookingView {
  const gpus = [
    { index: 2, uuid: "GPU-2", name: "NVIDIA A100" },
    { index: 3, uuid: "GPU-3", name: "NVIDIA A100" },
  ];
  return {
    releasedBecause: null,
    idle: null,
    id: "res_1",
    state: "active",
    status: "booked",
    host: { id: "h1", name: "node-a" },
    gpus,
    startsAt: "2026-11-30T09:00:00.000Z",
    endsAt: "2026-11-30T13:00:00.000Z",
    purpose: "fine-tune",
    bookedBy: alice,
    createdAt: "2026-11-30T09:00:00.000Z",
    cancelReason: null,
    cancelledBy: null,
    changes: [],
    launch: launchSettings(gpus, "res_1.Pr00f-of_the-booking"),
    ...overrides,
  };
}

describe("formatTable", () => {
  it("pads columns to the widest cell", () => {
    expect(formatTable(["A", "BB"], [["long", "x"], ["s", "y"]])).toBe("A     BB\nlong  x\ns     y\n");
  });
});

describe("formatStatus", () => {
  it("lists GPUs in host and index order with the free count, the state by the one rule, bookedBy and end", () => {
    const lines = formatStatus(snapshot, NOW).trimEnd().split("\n");
    expect(lines[0]).toBe("GPUs: 1 of 2 free, 1 in conflict");
    expect(lines[1]).toMatch(/^HOST\s+UNIT\s+MODEL\s+UTIL\s+MEMORY\s+STATE\s+BOOKER\s+UNTIL\s+RUNNING$/);
    // Without the server's attribution nobody is proven to be the booker: alice's process counts as a conflict.
    expect(lines[2]).toMatch(/^node-a\s+GPU 0\s+NVIDIA H100 80GB HBM3\s+12%\s+1\.0\/80 GiB\s+Conflict\s+Alice A\s+2026-11-30 12:00Z\s+alice$/);
    // GPU 1's booking starts later: free now, utilization unknown.
    expect(lines[3]).toMatch(/^node-a\s+GPU 1\s+.*\?\s+0\.0\/80 GiB\s+Free\s+-\s+-\s+-$/);
  });

  it("does not call a GPU free that holds memory with no process listed, and says so in RUNNING", () => {
    // As seen on a GPU node whose jobs run in another PID namespace: 87 %, 40 GiB, no process.
    const unseen: FleetView = { ...snapshot, bookings: [], gpus: [gpu(0, { utilizationGpuPct: 87, memoryUsedMiB: 40_960, memoryTotalMiB: 81_920 })] };
    const lines = formatStatus(unseen, NOW).trimEnd().split("\n");
    expect(lines[0]).toBe("GPUs: 0 of 1 free, 1 in use without a booking");
    expect(lines[2]).toMatch(/^node-a\s+GPU 0\s+NVIDIA H100 80GB HBM3\s+87%\s+40\/80 GiB\s+In use, not booked\s+-\s+-\s+unseen \(no process visible\)$/);
    expect(formatWhois(unseen, "node-a", "0", NOW)).toContain("In use with no process visible (40 GiB held)");
  });

  it("takes the server's reconciled states and the booking it names for each GPU", () => {
    const bob = { id: "u2", username: "bob", name: "Alice A" };
    const attributed = { pid: 4711, runner: alice, reservationId: "r1", login: "alice", evidence: { kind: "reservation" as const, value: "r1" }, intruder: false };
    const withStates: FleetView = {
      ...snapshot,
      bookings: [...snapshot.bookings!, { ...snapshot.bookings![1], reservationId: "r3", bookedBy: bob, startsAt: "2026-11-30T13:00:00Z", endsAt: "2026-11-30T14:00:00Z" }],
      gpuStates: {
        "GPU-0": { state: "booked_in_use", reservationId: "r1", bookedBy: alice, processes: [attributed], problem: null },
        "GPU-1": { state: "free", reservationId: null, bookedBy: null, processes: [], problem: null },
      },
      gpuBookings: { "GPU-0": { reservationId: "r1", bookedBy: alice, bookedByName: "Alice A", startsAt: "2026-11-30T09:00:00Z", until: "2026-11-30T11:30:00Z", purpose: "llm eval" } },
    };
    const text = formatStatus(withStates, NOW);
    expect(text).toContain("GPUs: 1 of 2 free, 1 in use by its booker");
    // Two people named "Alice A" in the view: the username tells them apart.
    expect(text).toMatch(/Booked, in use\s+Alice A \(alice\)\s+2026-11-30 11:30Z\s+Alice A \(alice\)/);
  });
});

describe("formatWhois", () => {
  it("tells the state, the booker with purpose and end, who runs there and since when", () => {
    const text = formatWhois(snapshot, "node-a", "0", NOW) ?? "";
    expect(text).toContain("State: Conflict");
    expect(text).toContain("Booked by Alice A (alice) since 2026-11-30 09:00Z until 2026-11-30 12:00Z: llm eval [r1]");
    expect(text).toContain("pid 4711 python by alice since 2026-11-30 09:15Z, 2.0 GiB (not the booker)");
  });

  it("finds the host in any case and with its domain, says when nothing runs, and answers null for an unknown GPU", () => {
    const text = formatWhois(snapshot, "NODE-A.lab", "1", NOW) ?? "";
    expect(text).toContain("Not booked now");
    expect(text).toContain("Nothing runs there");
    expect(formatWhois(snapshot, "node-a", "7", NOW)).toBeNull();
  });

  it("says when a process names the booking without its proof", () => {
    const bob = { id: "u2", username: "bob", name: "Bob B" };
    const hiding = { pid: 4711, runner: bob, reservationId: null, login: "bob", evidence: { kind: "login" as const, value: "bob" }, falseClaim: "r1", intruder: true };
    const view: FleetView = { ...snapshot, gpuStates: { "GPU-0": { state: "conflict", reservationId: "r1", bookedBy: alice, processes: [hiding], problem: null } } };
    expect(formatWhois(view, "node-a", "0", NOW)).toContain("(not the booker) (claims reservation r1 without its proof)");
  });
});

describe("booking output", () => {
  it("prints export lines that eval can take", () => {
    expect(exportLines(booking())).toBe("# GPUs 2, 3 on node-a (res_1)\nexport CUDA_DEVICE_ORDER=PCI_BUS_ID\nexport CUDA_VISIBLE_DEVICES=2,3\nexport GPUDESK_RESERVATION=res_1.Pr00f-of_the-booking\n");
  });

  it("leaves GPUDESK_RESERVATION out where the server gave no proof (someone else's booking)", () => {
    const notMine = booking({ launch: launchSettings([{ index: 2, uuid: "GPU-2" }], null) });
    expect(exportLines(notMine)).toBe("# GPUs 2, 3 on node-a (res_1)\nexport CUDA_DEVICE_ORDER=PCI_BUS_ID\nexport CUDA_VISIBLE_DEVICES=2\n");
  });

  it("prints the booking with its launch settings", () => {
    const text = formatBooking(booking());
    expect(text).toContain("Reservation res_1 (active)");
    expect(text).toContain("node-a GPUs 2, 3 (NVIDIA A100)");
    expect(text).toContain("export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3");
    expect(text).toContain("export GPUDESK_RESERVATION=res_1.Pr00f-of_the-booking");
  });

  it("lists bookings as a table", () => {
    expect(formatBookingList([])).toBe("No reservations\n");
    expect(formatBookingList([booking()])).toMatch(/res_1\s+active\s+node-a\s+GPUs 2, 3\s+2026-11-30 09:00Z\s+2026-11-30 13:00Z\s+fine-tune/);
  });
});

describe("MIG slices on every CLI surface", () => {
  // An H100 split 4g.40gb + 3g.40gb (not the demo's layout): nina runs on 0:1 without a booking, 0:0 is Alice's.
  const parent = gpu(0, { uuid: "GPU-P", migMode: "Enabled", utilizationGpuPct: null, memoryUsedMiB: 16_942 });
  const big = gpu(0, { uuid: "MIG-A", migMode: "Enabled", utilizationGpuPct: null, memoryTotalMiB: 40_448, memoryUsedMiB: 17, mig: { parentUuid: "GPU-P", profile: "4g.40gb", gpuInstanceId: 1, computeInstanceId: 0, deviceIndex: 0 } });
  const small = gpu(0, {
    uuid: "MIG-B",
    migMode: "Enabled",
    utilizationGpuPct: null,
    memoryTotalMiB: 40_448,
    memoryUsedMiB: 16_925,
    mig: { parentUuid: "GPU-P", profile: "3g.40gb", gpuInstanceId: 2, computeInstanceId: 0, deviceIndex: 1 },
    processes: [{ gpuUuid: "MIG-B", pid: 5150, name: "python", usedMemoryMiB: 16_900, user: "nina", command: "python serve.py", startedAt: "2026-11-30T08:00:00Z", container: null, slurmJobId: null, reservationId: null }],
  });
  const view: FleetView = {
    ...snapshot,
    hosts: [{ ...snapshot.hosts[0]!, gpuUuids: ["GPU-P", "MIG-A", "MIG-B", "GPU-1"] }],
    gpus: [small, gpu(1, { memoryUsedMiB: 0, utilizationGpuPct: 0 }), big, parent],
    bookings: [{ reservationId: "r9", hostId: "h1", bookedBy: alice, startsAt: "2026-11-30T09:00:00Z", endsAt: "2026-11-30T12:00:00Z", purpose: "slice job", gpus: [{ uuid: "MIG-A", index: 0 }] } as never],
  };

  it("status: one row per unit under its name, the split GPU as such, columns aligned, utilization 'n/r' on slices", () => {
    const lines = formatStatus(view, NOW).trimEnd().split("\n");
    expect(lines[0]).toBe("Units: 1 of 3 free, 1 in use without a booking, 1 booked and idle (2 GPUs, one split into 2 MIG slices)");
    const table = lines.slice(1, 6);
    expect(table.map((line) => line.slice(table[0]!.indexOf("UNIT")).split(/\s{2,}/)[0])).toEqual(["UNIT", "GPU 0", "GPU 0:0 (4g.40gb)", "GPU 0:1 (3g.40gb)", "GPU 1"]);
    // Every column starts where its header does.
    for (const header of ["MODEL", "UTIL", "MEMORY", "STATE"]) {
      const at = table[0]!.indexOf(header);
      for (const line of table.slice(1)) expect(line[at - 1], `${header} in ${line}`).toBe(" ");
      for (const line of table.slice(1)) expect(line[at], `${header} in ${line}`).not.toBe(" ");
    }
    expect(table[1]).toContain("Split into 2 MIG slices");
    expect(table[3]).toMatch(/GPU 0:1 \(3g\.40gb\)\s+NVIDIA H100 80GB HBM3\s+n\/r\s+17\/40 GiB\s+In use, not booked\s+-\s+-\s+nina$/);
    expect(lines.at(-1)).toBe("UTIL n/r: not reported; nvidia-smi reports no utilization per MIG slice.");
  });

  it("whois HOST 0:1 names the slice, its state and who runs there", () => {
    const text = formatWhois(view, "node-a", "0:1", NOW) ?? "";
    expect(text.split("\n").slice(0, 3)).toEqual(["node-a GPU 0:1 (3g.40gb) (NVIDIA H100 80GB HBM3, MIG-B)", "State: In use, not booked", "Not booked now"]);
    expect(text).toContain("pid 5150 python serve.py by nina");
    expect(formatWhois(view, "node-a", "0", NOW)).toContain("State: Split into MIG slices");
    expect(formatWhois(view, "node-a", "0:7", NOW)).toBeNull();
  });

  const sliceBooking = () => {
    const gpus = [{ index: 0, uuid: "MIG-A", name: "NVIDIA H100 80GB HBM3", mig: { deviceIndex: 0, profile: "4g.40gb" } }];
    return booking({ id: "res_9", gpus, launch: launchSettings(gpus, "res_9.proof") });
  };

  it("list, reserve, env and run name the slice", () => {
    expect(formatBookingList([sliceBooking()])).toMatch(/res_9\s+active\s+node-a\s+GPU 0:0 \(4g\.40gb\)\s+2026-11-30 09:00Z/);
    expect(formatBooking(sliceBooking())).toContain("node-a GPU 0:0 (4g.40gb) (NVIDIA H100 80GB HBM3)");
    expect(exportLines(sliceBooking())).toBe("# GPU 0:0 (4g.40gb) on node-a (res_9)\nexport CUDA_VISIBLE_DEVICES=MIG-A\nexport GPUDESK_RESERVATION=res_9.proof\n");
    expect(bookedLine(sliceBooking())).toBe("gpudesk: node-a GPU 0:0 (4g.40gb) booked until 2026-11-30 13:00Z (res_9)\n");
  });
});

describe("the local booking", () => {
  it("matches host names up to the domain", () => {
    expect(sameHost("node-a", "node-a.lab.example")).toBe(true);
    expect(sameHost("NODE-A", "node-a")).toBe(true);
    expect(sameHost("node-a", "node-b")).toBe(false);
  });

  it("is the one active booking on this host", () => {
    const here = booking();
    const elsewhere = booking({ id: "res_2", host: { id: "h2", name: "node-b" } });
    const later = booking({ id: "res_3", state: "scheduled" });
    expect(pickLocalBooking([elsewhere, here, later], "node-a")).toBe(here);
    expect(pickLocalBooking([elsewhere], "node-a")).toBeNull();
    expect(pickLocalBooking([here, booking({ id: "res_4" })], "node-a")).toEqual(["res_1", "res_4"]);
  });
});

describe("on a GPU host", () => {
  it("knows which gpudesk host this machine is, exact names first", () => {
    expect(localGpuHost(["node-a.lab", "node-b"], "NODE-A")).toBe("node-a.lab");
    expect(localGpuHost(["node-a", "node-a.lab"], "node-a.lab")).toBe("node-a.lab");
    expect(localGpuHost(["node-b"], "laptop")).toBeNull();
  });

  it("books on this host unless --host says otherwise", () => {
    expect(withLocalHost({ count: "2" }, "node-a")).toEqual({ count: "2", host: "node-a" });
    expect(withLocalHost({ host: "node-b" }, "node-a")).toEqual({ host: "node-b" });
    expect(withLocalHost({ count: "1" }, null)).toEqual({ count: "1" });
  });

  it("refuses to run a command here with another host's GPUs, in one line", () => {
    const here = { local: "node-a", simulated: [] };
    expect(() => checkRunHost({ host: "node-b" }, here, "node-a")).toThrow(
      'run starts the command here, on node-a, not on node-b: run it on node-b, or book with "gpudesk reserve --host node-b"',
    );
    expect(() => checkRunHost({}, { local: null, simulated: [] }, "laptop")).toThrow(/^run starts the command here, on laptop, which is no GPU host of this gpudesk server/);
    expect(() => checkRunHost({ host: "NODE-A.lab" }, here, "node-a")).not.toThrow();
    expect(() => checkRunHost({}, here, "node-a")).not.toThrow();
  });

  it("lets the simulated demo fleet be booked from any machine, and nothing else", () => {
    const demo = { local: null, simulated: ["sim-4090-a", "sim-h100-a"] };
    expect(() => checkRunHost({ host: "sim-4090-a" }, demo, "laptop")).not.toThrow();
    expect(() => checkRunHost({}, demo, "laptop")).not.toThrow();
    expect(() => checkRunHost({ host: "node-b" }, demo, "laptop")).toThrow(/not on node-b/);
    expect(bookedHostRunsHere("sim-h100-a", demo)).toBe(true);
    expect(bookedHostRunsHere("node-b", demo)).toBe(false);
    expect(bookedHostRunsHere("node-a", { local: "node-a", simulated: [] })).toBe(true);
  });
});

describe("bookingRequest", () => {
  const now = new Date("2026-11-30T10:00:00Z");

  it("asks for N GPUs with a minimum of free memory", () => {
    expect(bookingRequest({ count: "2", host: "node-a", minFreeMem: "40G", for: "4h" }, "default", now)).toEqual({
      count: 2,
      host: "node-a",
      minFreeMemoryMiB: 40960,
      durationMinutes: 240,
      purpose: "default",
    });
  });

  it("asks for named GPUs of a host", () => {
    expect(bookingRequest({ host: "node-a", gpus: "0,1", until: "2026-11-30T12:00:00Z", purpose: "eval" }, "default", now)).toEqual({
      host: "node-a",
      gpus: [0, 1],
      endsAt: "2026-11-30T12:00:00.000Z",
      purpose: "eval",
    });
    expect(() => bookingRequest({ gpus: "0", for: "1h" }, "x", now)).toThrow(/needs --host/);
    expect(bookingRequest({ host: "node-a", gpus: "1", for: "1h", allowBusy: true }, "x", now)).toMatchObject({ gpus: [1], allowBusy: true });
    expect(() => bookingRequest({ count: "1", for: "1h", allowBusy: true }, "x", now)).toThrow(/--allow-busy applies to --gpus/);
  });
});

describe("exitCodeOf", () => {
  it("passes codes through and maps signals to 128 + n", () => {
    expect(exitCodeOf(3, null)).toBe(3);
    expect(exitCodeOf(null, "SIGTERM")).toBe(143);
    expect(exitCodeOf(null, "SIGINT")).toBe(130);
  });
});

describe("idle release in gpudesk list and status", () => {
  it("says when an idle booking is released unless used, and how to keep it", () => {
    const warned = booking({ idle: { phase: "warning", idleSince: "2026-11-30T12:05:00.000Z", releaseAt: "2026-11-30T14:05:00.000Z", idleMinutes: 95, keepsLeft: 1, exempt: false, reportOnly: false } });
    expect(formatIdleLines([warned])).toBe("\nres_1: Idle since 12:05Z — released at 14:05Z unless used. You can keep it once more. gpudesk keep res_1\n");
    const used = booking({ idle: { ...warned.idle!, keepsLeft: 0 } });
    expect(formatIdleLines([used])).toContain("No keeps left");
    const released = booking({ state: "released", releasedBecause: "idle", idle: { ...warned.idle!, phase: "released" } });
    expect(formatIdleLines([released])).toBe("\nres_1: Released after 2 h idle at 14:05Z\n");
    expect(formatIdleLines([booking()])).toBe("");
  });
});

describe("a booking across nodes in gpudesk list and release: told once, with every node", () => {
  const parts = [
    { id: "res_1", nodeRank: 0, host: { id: "h3", name: "h100-03" }, gpus: [] },
    { id: "res_2", nodeRank: 1, host: { id: "h4", name: "h100-04" }, gpus: [] },
  ];
  const part = (id: string, nodeRank: number, overrides: Partial<BookingView> = {}) =>
    booking({ id, host: parts[nodeRank].host, multiNode: { id: "res_1", nodeRank, nodeCount: 2, label: "2 × 8 H100", partLabel: `2 × 8 H100, node ${nodeRank + 1} of 2`, parts }, ...overrides });

  it("gives one idle line for the booking, by its id, naming every node (it gave one per node)", () => {
    const idle = { phase: "warning" as const, idleSince: "2026-11-30T12:05:00.000Z", releaseAt: "2026-11-30T14:05:00.000Z", idleMinutes: 95, keepsLeft: 1, exempt: false, reportOnly: false };
    expect(formatIdleLines([part("res_1", 0, { idle }), part("res_2", 1, { idle })])).toBe(
      "\nres_1 (2 × 8 H100 on h100-03 and h100-04): Idle since 12:05Z — released at 14:05Z unless used. You can keep it once more. gpudesk keep res_1\n",
    );
  });

  it("says a release ended the booking on every node, whichever part was named (it named one node)", () => {
    expect(releasedLine(part("res_2", 1))).toBe("Released res_1 (2 × 8 H100 on h100-03 and h100-04)\n");
    expect(releasedLine(booking())).toBe("Released res_1 (node-a GPUs 2, 3)\n");
  });
});
