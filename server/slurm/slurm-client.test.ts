import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NODES_BUSY, SlurmClient, SlurmError, SlurmUnreachable, SlurmVersionError } from "@/server/slurm/slurm-client";
import { expandHostlist } from "@/server/slurm/hostlist";
import { gpusIn, gresIndices } from "@/server/slurm/slurm-model";

/** JSON recorded from the real Slurm 26.05 of scripts/slurm/start.sh (server/slurm/fixtures/README.md). */
const fixture = (name: string): unknown => JSON.parse(readFileSync(path.join(__dirname, "fixtures", name), "utf8"));

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

/** A slurmrestd stand-in on a real port, answering each path with a recorded answer. */
async function replay(routes: Record<string, { status?: number; body: unknown }>): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body: text ? JSON.parse(text) : undefined });
      const route = routes[`${request.method} ${request.url}`];
      response.writeHead(route ? (route.status ?? 200) : 404, { "Content-Type": "application/json" });
      response.end(JSON.stringify(route ? route.body : { errors: [{ error: "Unable to find requested URL", error_number: 9001 }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const servers: Server[] = [];
afterAll(() => servers.forEach((server) => server.close()));

let keyFile: string;
beforeAll(() => {
  keyFile = path.join(mkdtempSync(path.join(tmpdir(), "gpudesk-slurm-")), "jwt_hs256.key");
  writeFileSync(keyFile, "0123456789abcdef0123456789abcdef");
});

async function client(routes: Record<string, { status?: number; body: unknown }>) {
  const fake = await replay({ "GET /openapi/v3": { body: fixture("openapi-v3.json") }, ...routes });
  servers.push(fake.server);
  const slurm = new SlurmClient({ url: fake.url, user: "gpudesk", jwtKeyFile: keyFile }, () => Date.parse("2026-12-07T15:00:00Z"));
  return { slurm, seen: fake.seen };
}

describe("SlurmClient against recorded answers of Slurm 26.05", () => {
  it("picks the highest API version slurmrestd offers and signs an HS256 token Slurm can check", async () => {
    const { slurm, seen } = await client({ "GET /slurm/v0.0.45/ping": { body: fixture("ping.json") } });
    expect(await slurm.connect()).toEqual({ release: "26.05.5", major: 26, minor: 5, api: "v0.0.45" });
    await slurm.ping();
    const { headers } = seen[1];
    expect(seen[1].url).toBe("/slurm/v0.0.45/ping");
    expect(headers["x-slurm-user-name"]).toBe("gpudesk");
    const [header, payload, signature] = String(headers["x-slurm-user-token"]).split(".");
    expect(JSON.parse(Buffer.from(header, "base64url").toString())).toEqual({ alg: "HS256", typ: "JWT" });
    expect(JSON.parse(Buffer.from(payload, "base64url").toString())).toEqual({ sun: "gpudesk", iat: 1796655600, exp: 1796655900 });
    expect(signature).toBe(createHmac("sha256", readFileSync(keyFile)).update(`${header}.${payload}`).digest("base64url"));
  });

  it("refuses a Slurm older than 25.05 with one line saying why", async () => {
    const old = structuredClone(fixture("openapi-v3.json")) as { info: { "x-slurm": { version: { major: string; minor: string }; release: string } } };
    old.info["x-slurm"].version = { ...old.info["x-slurm"].version, major: "24", minor: "11" };
    old.info["x-slurm"].release = "24.11.5";
    const { slurm } = await client({ "GET /openapi/v3": { body: old } });
    const error = await slurm.connect().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SlurmVersionError);
    expect((error as Error).message).toMatch(/^Slurm 24\.11\.5 at http:\/\/127\.0\.0\.1:\d+ is older than 25\.05: gpudesk needs 25\.05 or later/);
    expect((error as Error).message).not.toContain("\n");
  });

  it("reads jobs: user, state, nodes, GPUs per node, the indices Slurm gave, the reservation, the time limit's end", async () => {
    const { slurm } = await client({ "GET /slurm/v0.0.45/jobs": { body: fixture("jobs-running-and-pending.json") } });
    await slurm.connect();
    const jobs = await slurm.listJobs();
    expect(jobs.map(({ id, user, state, reason, nodes, gpusPerNode, gpuIndices, reservation }) => ({ id, user, state, reason, nodes, gpusPerNode, gpuIndices, reservation }))).toEqual([
      { id: 1, user: "ann", state: "running", reason: "", nodes: ["slurm-a"], gpusPerNode: 2, gpuIndices: { "slurm-a": [0, 1] }, reservation: "gpudesk-b1" },
      { id: 2, user: "bob", state: "pending", reason: "Resources", nodes: ["slurm-a"], gpusPerNode: 8, gpuIndices: {}, reservation: null },
    ]);
    // A 5-minute limit: the job holds its GPUs until then.
    expect(jobs[0].endsAt! - jobs[0].startsAt!).toBe(5 * 60_000);
  });

  it("reads reservations, one over two nodes with GPUs per node", async () => {
    const { slurm } = await client({ "GET /slurm/v0.0.45/reservations": { body: fixture("reservations-two-nodes.json") } });
    await slurm.connect();
    expect(await slurm.listReservations()).toEqual([
      expect.objectContaining({ name: "gpudesk-b2", users: ["ann"], nodes: ["slurm-a", "slurm-b"], gpus: 8, flags: ["SPEC_NODES", "TRES_PER_NODE"] }),
    ]);
  });

  it("creates a reservation with GPUs per node and the booking's times, and updates only what changed", async () => {
    const { slurm, seen } = await client({ "POST /slurm/v0.0.45/reservation": { body: fixture("reservation-update.json") } });
    await slurm.connect();
    const startsAt = new Date("2026-12-07T15:00:00Z");
    const endsAt = new Date("2026-12-07T17:00:00Z");
    await slurm.createReservation({ name: "gpudesk-x", users: ["ann"], nodes: ["slurm-a", "slurm-b"], gpusPerNode: 4, startsAt, endsAt });
    await slurm.updateReservation("gpudesk-x", { endsAt: new Date("2026-12-07T18:00:00Z") });
    expect(seen.slice(1).map((entry) => entry.body)).toEqual([
      {
        name: "gpudesk-x",
        users: ["ann"],
        node_list: ["slurm-a", "slurm-b"],
        flags: ["TRES_PER_NODE"],
        tres: [{ type: "gres", name: "gpu", count: 4 }],
        start_time: { set: true, number: startsAt.getTime() / 1000 },
        end_time: { set: true, number: endsAt.getTime() / 1000 },
      },
      { name: "gpudesk-x", end_time: { set: true, number: Date.parse("2026-12-07T18:00:00Z") / 1000 } },
    ]);
  });

  it("turns Slurm's refusals into errors with Slurm's number, and takes a deleted reservation's absence calmly", async () => {
    const { slurm } = await client({
      "POST /slurm/v0.0.45/reservation": { status: 422, body: fixture("reservation-create-busy.json") },
      "DELETE /slurm/v0.0.45/reservation/gone": { status: 422, body: fixture("reservation-delete-missing.json") },
      "DELETE /slurm/v0.0.45/reservation/gpudesk-b1": { body: fixture("reservation-delete.json") },
    });
    await slurm.connect();
    const error = await slurm.createReservation({ name: "gpudesk-b1", users: ["ann"], nodes: ["slurm-a"], gpusPerNode: 2, startsAt: new Date(), endsAt: new Date(Date.now() + 3600_000) }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SlurmError);
    expect((error as SlurmError).number).toBe(NODES_BUSY);
    expect((error as SlurmError).message).toBe("Requested nodes are busy (2016)");
    await expect(slurm.deleteReservation("gone")).resolves.toBe("deleted");
    await expect(slurm.deleteReservation("gpudesk-b1")).resolves.toBe("deleted");
  });

  it("says so when slurmrestd cannot be reached", async () => {
    const fake = await replay({});
    fake.server.close();
    const slurm = new SlurmClient({ url: fake.url, user: "gpudesk", token: "t" });
    const error = await slurm.connect().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SlurmUnreachable);
    expect((error as Error).message).toMatch(/^Slurm \(slurmrestd at http:\/\/127\.0\.0\.1:\d+\) cannot be reached: /);
  });
});

describe("Slurm's strings", () => {
  it("expands host lists and reads GPU counts and indices", () => {
    expect(expandHostlist("dgx-[01-03,07],gpu-a")).toEqual(["dgx-01", "dgx-02", "dgx-03", "dgx-07", "gpu-a"]);
    expect(expandHostlist("slurm-a,slurm-b")).toEqual(["slurm-a", "slurm-b"]);
    expect(expandHostlist("")).toEqual([]);
    expect(gpusIn("cpu=8,gres/gpu=2")).toBe(2);
    expect(gpusIn("gres/gpu:a100:3")).toBe(3);
    expect(gpusIn("cpu=1,mem=8000M")).toBe(0);
    expect(gresIndices("gpu:2(IDX:0-1)")).toEqual([0, 1]);
    expect(gresIndices("gpu:a100:3(IDX:0,2-3)")).toEqual([0, 2, 3]);
  });
});
