import { describe, expect, it } from "vitest";
import { launchSettings } from "@/lib/domain/launch-settings";
import type { MultiNodeBookingView, BookingView } from "@/lib/domain/booking-types";
import { waitRequestAcrossNodes } from "@/host/cli-client/wait-for-grant";
import { UsageError } from "@/host/cli-client/cli-errors";
import { formatBookingList } from "@/host/cli-client/format-output";
import { asksForNodes, formatMultiNodeBooking, multiNodeRequest, nodeEnvironment, partOnThisHost, rankEnvironments } from "@/host/cli-client/multi-node-commands";

const nodes = [
  { host: "dgx-a", gpus: 2 },
  { host: "dgx-b", gpus: 2 },
];

/** Part `rank` of a 2 × 2 booking "bk1" on dgx-a and dgx-b, as the server answers it to the booker. */
function part(rank: number, state: BookingView["state"] = "active"): BookingView {
  const id = rank === 0 ? "bk1" : `bk1-part${rank}`;
  const gpus = [
    { uuid: `GPU-${rank}-4`, index: 4, name: "NVIDIA H100 80GB HBM3" },
    { uuid: `GPU-${rank}-5`, index: 5, name: "NVIDIA H100 80GB HBM3" },
  ];
  const parts = nodes.map((node, nodeRank) => ({ id: nodeRank === 0 ? "bk1" : `bk1-part${nodeRank}`, nodeRank, host: { id: `h${nodeRank}`, name: node.host }, gpus }));
  return {
    id,
    state,
    status: "booked",
    host: { id: `h${rank}`, name: nodes[rank].host },
    gpus,
    startsAt: "2026-12-01T10:00:00.000Z",
    endsAt: "2026-12-04T10:00:00.000Z",
    purpose: "pretrain",
    bookedBy: { id: "u1", username: "ada", name: "Ada" },
    createdAt: "2026-12-01T10:00:00.000Z",
    cancelReason: null,
    cancelledBy: null,
    changes: [],
    launch: launchSettings(gpus, `${id}.proof`, { bookingId: "bk1", nodeRank: rank, nodes }),
    releasedBecause: null,
    idle: null,
    multiNode: { id: "bk1", nodeRank: rank, nodeCount: 2, label: "2 × 2 H100", partLabel: `2 × 2 H100, node ${rank + 1} of 2`, parts },
  };
}

describe("gpudesk across nodes", () => {
  it("reserve --nodes 2 --gpus-per-node 8 --model H100 asks for one booking across nodes, and refuses flags of one host", () => {
    expect(multiNodeRequest({ nodes: "2", gpusPerNode: "8", model: "H100" }, { durationMinutes: 4320, purpose: "p" })).toEqual({
      nodes: 2,
      gpusPerNode: 8,
      model: "H100",
      durationMinutes: 4320,
      purpose: "p",
    });
    expect(() => multiNodeRequest({ nodes: "2" }, {})).toThrow("Across nodes needs both --nodes and --gpus-per-node");
    expect(() => multiNodeRequest({ nodes: "2", gpusPerNode: "8", host: "dgx-a" }, {})).toThrow("--host books one host");
    expect(() => multiNodeRequest({ nodes: "two", gpusPerNode: "8" }, {})).toThrow('"two" is not a number of nodes');
    // --wait across nodes waits for the whole booking: the waitlist body keeps nodes, GPUs per node and model, and turns an end into a duration.
    const body = multiNodeRequest({ nodes: "2", gpusPerNode: "8", model: "H100" }, { endsAt: "2026-12-01T13:00:00.000Z", purpose: "p" });
    expect(waitRequestAcrossNodes(body, Date.parse("2026-12-01T10:00:00Z"))).toEqual({ nodes: 2, gpusPerNode: 8, model: "H100", durationMinutes: 180, purpose: "p" });
  });

  it("reserve --part HOST:N --part HOST:0,1 names each node's host (node 0 first), and refuses what does not fit the shape", () => {
    expect(asksForNodes({ part: ["dgx-a:8", "dgx-b:0,1"] })).toBe(true);
    expect(multiNodeRequest({ part: ["dgx-a:8", "dgx-b:0,1"] }, { durationMinutes: 60, purpose: "p" })).toEqual({
      parts: [
        { host: "dgx-a", gpus: 8 },
        { host: "dgx-b", gpus: [0, 1] },
      ],
      durationMinutes: 60,
      purpose: "p",
    });
    expect(() => multiNodeRequest({ part: ["dgx-a:8"] }, {})).toThrow("Across nodes needs two --part or more");
    expect(() => multiNodeRequest({ part: ["dgx-a:8", "dgx-b:8"], nodes: "2" }, {})).toThrow("--part names each node itself");
    expect(() => multiNodeRequest({ part: ["dgx-a", "dgx-b:8"] }, {})).toThrow('--part "dgx-a" is not HOST:N');
    expect(() => multiNodeRequest({ part: ["dgx-a:0", "dgx-b:8"] }, {})).toThrow('"0" is not a number of GPUs');
  });

  it("run --booking on a node finds its own part by the host name and gives it that node's rank and GPUs", () => {
    const booking = part(0);
    expect(partOnThisHost(booking, "dgx-b.lab.example")).toEqual({ id: "bk1-part1", hostName: "dgx-b" });
    expect(partOnThisHost(booking, "DGX-A")).toEqual({ id: "bk1", hostName: "dgx-a" });
    const env = nodeEnvironment(part(1));
    expect(env).toMatchObject({ CUDA_VISIBLE_DEVICES: "4,5", NODE_RANK: "1", WORLD_SIZE: "4", MASTER_ADDR: "dgx-a", GPUDESK_RESERVATION: "bk1-part1.proof" });
  });

  it("run --booking refuses on a host that holds no part, and on a part that has not started", () => {
    expect(() => partOnThisHost(part(0), "laptop")).toThrow("This machine, laptop, holds no part of booking bk1 (its hosts: dgx-a, dgx-b): run the command on one of them");
    expect(() => nodeEnvironment(part(1, "scheduled"))).toThrow("Booking bk1-part1 is scheduled: it starts at");
  });

  it("list names each part as a node of the booking", () => {
    expect(formatBookingList([part(0), part(1)])).toMatch(/dgx-b\s+GPUs 4, 5 \(2 × 2 H100, node 2 of 2\)/);
  });

  it("reserve prints each node's launch lines and the one mpirun line", () => {
    const booking: MultiNodeBookingView = { id: "bk1", nodeCount: 2, label: "2 × 2 H100", startsAt: part(0).startsAt, endsAt: part(0).endsAt, purpose: "pretrain", parts: [part(0), part(1)], warnings: [] };
    const text = formatMultiNodeBooking(booking);
    expect(text).toContain("Booking bk1: 2 × 2 H100 on dgx-a, dgx-b");
    expect(text).toContain("On each node: gpudesk run --booking bk1 -- python train.py");
    expect(text).toContain("node 2 of 2: dgx-b GPUs 4,5 (part bk1-part1)");
    expect(text).toMatch(/--nnodes=2 --nproc_per_node=2 --node_rank=1 --rdzv_backend=c10d --rdzv_endpoint=dgx-a:\d+ --rdzv_id=bk1/);
    expect(text).toContain("mpirun -np 4 -H dgx-a:2,dgx-b:2 --map-by ppr:2:node gpudesk run --booking bk1 -- python train.py");
  });

  it("run --booking --per-gpu starts one process per GPU with RANK, LOCAL_RANK, LOCAL_WORLD_SIZE; under mpirun the rank MPI named; plain run --booking one process", () => {
    const ranks = rankEnvironments(part(1), true, {});
    expect(ranks.map((env) => [env.RANK, env.LOCAL_RANK, env.LOCAL_WORLD_SIZE, env.WORLD_SIZE, env.CUDA_VISIBLE_DEVICES, env.NODE_RANK])).toEqual([
      ["2", "0", "2", "4", "4,5", "1"],
      ["3", "1", "2", "4", "4,5", "1"],
    ]);
    expect(rankEnvironments(part(1), false, {})).toEqual([nodeEnvironment(part(1))]);
    expect(rankEnvironments(part(1), false, {})[0].RANK).toBeUndefined();
    // mpirun -np 4 --map-by ppr:2:node: Open MPI's rank 3 is the second rank on dgx-b.
    expect(rankEnvironments(part(1), false, { OMPI_COMM_WORLD_RANK: "3", OMPI_COMM_WORLD_LOCAL_RANK: "1" })).toEqual([{ ...nodeEnvironment(part(1)), RANK: "3", LOCAL_RANK: "1", LOCAL_WORLD_SIZE: "2" }]);
    expect(rankEnvironments(part(0), false, { PMI_RANK: "1", MPI_LOCALRANKID: "1" })[0]).toMatchObject({ RANK: "1", LOCAL_RANK: "1" });
    expect(() => rankEnvironments(part(0), false, { OMPI_COMM_WORLD_RANK: "2", OMPI_COMM_WORLD_LOCAL_RANK: "2" })).toThrow("mpirun started local rank 2 on dgx-a, which holds 2 GPUs of this booking: start 2 ranks a node (--map-by ppr:2:node)");
  });

  it("the docker line of a node with an HCA carries what RDMA needs in a container; without one it does not", () => {
    const gpus = part(0).gpus;
    const withHca = launchSettings(gpus, null, { bookingId: "bk1", nodeRank: 0, nodes, fabric: { ibDevices: ["mlx5_0"], socketInterface: "ib0" } }).node!;
    expect(withHca.docker).toContain("--network host --ipc host --device=/dev/infiniband --cap-add=IPC_LOCK --ulimit memlock=-1 ");
    const plain = launchSettings(gpus, null, { bookingId: "bk1", nodeRank: 0, nodes }).node!;
    expect(plain.docker).not.toContain("/dev/infiniband");
    expect(plain.firstRank).toBe(0);
    expect(launchSettings(gpus, null, { bookingId: "bk1", nodeRank: 1, nodes: [{ host: "a", gpus: 3 }, { host: "b", gpus: 2 }] }).node!.firstRank).toBe(3);
  });
});
