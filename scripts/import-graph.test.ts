import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  componentsImportingServerCode,
  findCycles,
  folderCycles,
  hostImportingServer,
  importGraph,
  importsOf,
  layerBreaches,
  mayQuery,
  oldWordNames,
  oneWordBreaches,
  OWNED_TABLES,
  queriesOutsideOwners,
  tableQueryLines,
  SERVER_LAYERS,
  type ImportEdge,
} from "@/scripts/import-graph";

const root = fileURLToPath(new URL("..", import.meta.url));
const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });

describe("the project's imports", () => {
  const edges = importGraph(root);

  it("form no cycle, type imports included", () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(findCycles(edges).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("form no cycle between folders of server/, host/ or lib/", () => {
    for (const top of ["server/", "host/", "lib/"]) expect(folderCycles(edges, top).map((cycle) => cycle.join(" -> "))).toEqual([]);
  });

  it("run down server/'s declared layers only, every folder declared", () => {
    expect(layerBreaches(edges).map((breach) => `${breach.from} -> ${breach.to}: ${breach.why}`)).toEqual([]);
    const declared = SERVER_LAYERS.flatMap((layer) => layer.folders);
    expect(new Set(declared).size).toBe(declared.length);
  });

  it("keep host/ (bundled alone for GPU hosts) off the server's code", () => {
    expect(edges.some((e) => e.from.startsWith("host/") && e.to.startsWith("lib/"))).toBe(true);
    expect(hostImportingServer(edges).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it("query the Reservation table and its units only in server/bookings/store/, the stored minutes only in server/minutes/minute-store.ts, the usage tiers only in server/history/day-tier.ts", () => {
    expect(queriesOutsideOwners(root)).toEqual([]);
  });

  it('say "booking" in code: "reservation" only in the REST and page routes, the schema, wire field names and Slurm\'s reservations', () => {
    expect(oneWordBreaches(root)).toEqual([]);
  });

  it("reach server/ from components/ for types only", () => {
    expect(edges.some((e) => e.from.startsWith("components/") && e.to.startsWith("server/") && e.typeOnly)).toBe(true);
    expect(componentsImportingServerCode(edges).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });
});

describe("findCycles", () => {
  it("names each cycle once, the shortest way round from its first file", () => {
    const cycles = findCycles([
      edge("lib/a.ts", "lib/b.ts", true),
      edge("lib/b.ts", "lib/c.ts"),
      edge("lib/c.ts", "lib/a.ts"),
      edge("lib/b.ts", "lib/a.ts"),
      edge("lib/c.ts", "lib/d.ts"),
      edge("server/x.ts", "server/x.ts"),
    ]);
    expect(cycles).toEqual([["lib/a.ts", "lib/b.ts"], ["server/x.ts"]]);
  });

  it("finds none in a graph that only goes downhill", () => {
    expect(findCycles([edge("a.ts", "b.ts"), edge("a.ts", "c.ts"), edge("b.ts", "c.ts")])).toEqual([]);
  });
});

describe("folderCycles", () => {
  it("finds two folders that import each other, nested ones too, and leaves tests out", () => {
    const cycles = folderCycles(
      [
        edge("server/a/x.ts", "server/b/y.ts"),
        edge("server/b/y.ts", "server/a/z.ts", true),
        edge("server/c/p.ts", "server/c/d/q.ts"),
        edge("server/c/d/q.ts", "server/c/r.ts"),
        edge("server/e/s.ts", "server/f/t.ts"),
        edge("server/f/t.test.ts", "server/e/s.ts"),
      ],
      "server/",
    );
    expect(cycles).toEqual([["server/a", "server/b"], ["server/c", "server/c/d"]]);
  });
});

describe("layerBreaches", () => {
  const layers = [{ folders: ["server/core"] }, { folders: ["server/access", "server/hosts"] }, { folders: ["server/bookings/store"] }];

  it("names the file pair of an import that runs up or across the layers, and a folder no layer names", () => {
    const breaches = layerBreaches(
      [
        edge("server/bookings/store/occupancy.ts", "server/core/db.ts"),
        edge("server/core/db.ts", "server/access/actor.ts", true),
        edge("server/access/actor.ts", "server/hosts/topology.ts"),
        edge("server/access/actor.ts", "server/access/principal.ts"),
        edge("server/core/env.test.ts", "server/bookings/store/occupancy.ts"),
        edge("server/slurm/client.ts", "server/core/db.ts"),
      ],
      layers,
    );
    expect(breaches).toEqual([
      { from: "server/core/db.ts", to: "server/access/actor.ts", why: "server/core/ imports server/access/, 1 layer above it" },
      { from: "server/access/actor.ts", to: "server/hosts/topology.ts", why: "server/access/ imports server/hosts/, beside it in one layer" },
      { from: "server/slurm/client.ts", to: "server/core/db.ts", why: "server/slurm/ is in no layer: declare it in SERVER_LAYERS (scripts/import-graph.ts)" },
    ]);
  });
});

describe("hostImportingServer", () => {
  it("flags host code reaching server/, and lets its tests and lib/ pass", () => {
    const flagged = hostImportingServer([edge("host/agent/a.ts", "server/core/db.ts"), edge("host/agent/a.test.ts", "server/testing/x.ts"), edge("host/agent/a.ts", "lib/domain/snapshot.ts")]);
    expect(flagged).toEqual([edge("host/agent/a.ts", "server/core/db.ts")]);
  });
});

describe("importsOf", () => {
  it("tells type-only imports and re-exports from those that bring code", () => {
    const text = [
      'import type { LiveGpu } from "@/lib/live/live";',
      'import { type GpuState, type GpuReconciliation } from "@/lib/domain/attribution";',
      'import { formatBytes, type Units } from "@/lib/format/format";',
      'import "@/lib/log";',
      'export type { Snapshot } from "@/lib/domain/snapshot";',
      'export { chunks } from "@/lib/chunks";',
      'import { thing } from "not-a-file";',
      'const later = () => import("@/lib/format/duration");',
      'const old = require("@/lib/chunks");',
      'type Later = typeof import("@/lib/format/format");',
    ].join("\n");
    expect(importsOf(root, "components/example.tsx", text)).toEqual([
      edge("components/example.tsx", "lib/live/live.ts", true),
      edge("components/example.tsx", "lib/domain/attribution.ts", true),
      edge("components/example.tsx", "lib/format/format.ts"),
      edge("components/example.tsx", "lib/log.ts"),
      edge("components/example.tsx", "lib/domain/snapshot.ts", true),
      edge("components/example.tsx", "lib/chunks.ts"),
      edge("components/example.tsx", "lib/format/duration.ts"),
      edge("components/example.tsx", "lib/chunks.ts"),
      edge("components/example.tsx", "lib/format/format.ts", true),
    ]);
  });

  it("flags a component's code import of server/, and lets its tests and type imports pass", () => {
    const flagged = componentsImportingServerCode([
      edge("components/a.tsx", "server/core/db.ts"),
      edge("components/a.tsx", "server/auth/tokens.ts", true),
      edge("components/a.test.ts", "server/core/db.ts"),
      edge("app/page.tsx", "server/core/db.ts"),
    ]);
    expect(flagged).toEqual([edge("components/a.tsx", "server/core/db.ts")]);
  });
});

describe("tableQueryLines and mayQuery", () => {
  const [bookings, units, minutes] = OWNED_TABLES;

  it("find a query of the table, across lines and in raw SQL, and nothing else", () => {
    const text = [
      'const a = await db().reservation.findMany({ where: {} });',
      "const b = await tx",
      "  .reservation",
      "  .updateMany({ data: {} });",
      'await tx.$executeRaw`UPDATE "Reservation" SET "status" = ${status}`;',
      'const c = await db().reservationGpu.findMany({});',
      'const d = row.reservation.userId;',
      'const e = { action: "reservation.create" };',
      'await client.$executeRaw`INSERT INTO "GpuMinuteBlock" (a) SELECT 1`;',
      'const f = await tx.gpuMinuteBlock.deleteMany({ where: {} });',
    ].join("\n");
    expect(tableQueryLines(text, bookings)).toEqual([1, 3, 5]);
    expect(tableQueryLines(text, minutes)).toEqual([9, 10]);
    const [day, daySummed, slot, month] = ["GpuDay", "GpuDaySummed", "GpuSlot", "GpuMonth"].map((table) => OWNED_TABLES.find((owned) => owned.table === table));
    const tiers = [
      'await tx.gpuDay.deleteMany({ where: { day } });',
      'await client.gpuDaySummed.deleteMany({ where: {} });',
      'SELECT 1 FROM "GpuDay" r JOIN "GpuSlot" s ON s.id = r.id',
      'await db().gpuMonth.count();',
      'const rows = await tx.gpuDayish.findMany({});',
    ].join("\n");
    expect([day, daySummed, slot, month].map((owned) => tableQueryLines(tiers, owned!))).toEqual([[1, 3], [2], [3], [4]]);
    expect(units.table).toBe("ReservationGpu");
    expect(tableQueryLines(`${text}\nSELECT 1 FROM "ReservationGpu" rg`, units)).toEqual([6, 11]);
  });

  it("fail on a booking's units queried outside the store, naming the file and line", () => {
    const root = mkdtempSync(path.join(tmpdir(), "owned-"));
    try {
      mkdirSync(path.join(root, "server/history"), { recursive: true });
      mkdirSync(path.join(root, "server/bookings/store"), { recursive: true });
      const planted = ["export async function f() {", "  return db().reservationGpu.findMany({ where: {} });", "}"].join("\n");
      writeFileSync(path.join(root, "server/history/planted.ts"), planted);
      writeFileSync(path.join(root, "server/bookings/store/planted.ts"), planted);
      expect(queriesOutsideOwners(root, ["server/history/planted.ts", "server/bookings/store/planted.ts"])).toEqual(["ReservationGpu server/history/planted.ts:2"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("let the owners, tests and tooling query a table, and nothing else", () => {
    const may = (owned: (typeof OWNED_TABLES)[number], files: string[]) => files.map((file) => mayQuery(owned, file));
    expect(may(bookings, ["server/bookings/store/booking-parts.ts", "server/bookings/store/insert-booking.ts", "server/idle-release/idle-release.test.ts", "server/testing/factories.ts", "scripts/bench/run.ts"])).toEqual([true, true, true, true, true]);
    // The create commands no longer query it: a new booking's rows are written by store/insert-booking.ts (book()).
    expect(may(bookings, ["server/bookings/commands/create-booking.ts", "server/bookings/commands/book.ts"])).toEqual([false, false]);
    expect(may(bookings, ["server/bookings/commands/end-booking.ts", "server/bookings/views/list-bookings.ts", "server/notifications/deliveries.ts", "app/api/v1/reservations/route.ts", "lib/domain/x.ts"])).toEqual([false, false, false, false, false]);
    const tiers = OWNED_TABLES.filter((owned) => owned.table.startsWith("GpuDay") || owned.table.startsWith("GpuMonth") || owned.table === "GpuSlot");
    expect(tiers.map((owned) => owned.table)).toEqual(["GpuDay", "GpuDaySummed", "GpuSlot", "GpuMonth", "GpuMonthSummed"]);
    for (const owned of tiers) {
      expect(may(owned, ["server/history/day-tier.ts", "server/history/day-tier.test.ts", "scripts/bench-usage.ts", "server/history/rollup-store.ts", "server/history/gpu-time.ts", "server/history/retention.ts"])).toEqual([true, true, true, false, false, false]);
    }
    expect(may(minutes, ["server/minutes/minute-store.ts", "server/history/retention.test.ts", "server/history/rollup-store.ts", "server/history/retention.ts", "server/minutes/unreadable-blocks.ts"])).toEqual([true, true, false, false, false]);
  });
});

describe("oneWordBreaches and oldWordNames", () => {
  it('name a new identifier that says "reservation", with its file and line', () => {
    expect(oldWordNames("server/alerts/planted.ts", "const a = 1;\nconst reservationCount = 1;\n")).toEqual(["server/alerts/planted.ts:2 reservationCount"]);
    const text = [
      "export function cancelReservation(reservation: string) {}",
      "interface Row { reservationId: string; reservationHours: number }",
      "const { reservationId: id } = row;",
      "const answer = { reservations: [], reservationTotal: 2 };",
      "import { bookingView as ReservationView } from './x';",
    ].join("\n");
    expect(oldWordNames("lib/domain/planted.ts", text)).toEqual([
      "lib/domain/planted.ts:1 cancelReservation",
      "lib/domain/planted.ts:1 reservation",
      "lib/domain/planted.ts:2 reservationHours",
      "lib/domain/planted.ts:4 reservationTotal",
      "lib/domain/planted.ts:5 ReservationView",
    ]);
  });

  it("let the wire's field names, quoted keys, environment variables, Prisma's names and Slurm's reservations pass", () => {
    const text = [
      "const view = { reservationId: row.reservationId, reservations: [], launch: { reservationValue: null, exportReservation: null } };",
      "const actions = { \"reservation.create\": 1, \"reservation:idle\": 2 };",
      "const env = { GPUDESK_RESERVATION: value };",
      "await db().reservation.findMany({ where: { reservationId_idleSince: key } });",
      "const slurmReservationName = (id: string) => id;",
    ].join("\n");
    expect(oldWordNames("server/bookings/views/planted.ts", text)).toEqual([]);
    expect(oldWordNames("server/slurm/planted.ts", "const reservations = await client.listReservations();")).toEqual([]);
    expect(oldWordNames("app/api/v1/reservations/planted.ts", "const reservation = 1;")).toEqual([]);
  });

  it(`name a source file whose path says "reservation" outside the routes' folders`, () => {
    const planted = "server/bookings/views/reservation-planted.ts";
    expect(oneWordBreaches(root, [planted, "app/api/v1/reservations/route.ts"], () => "")).toEqual([`${planted} (file name)`]);
  });
});
