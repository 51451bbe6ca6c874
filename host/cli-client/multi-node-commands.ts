import type { MultiNodeBookingView, BookingView } from "@/lib/domain/booking-types";
import { nodeOfLabel } from "@/lib/domain/multi-node";
import { perGpuEnvironment } from "@/lib/domain/launch-settings";
import { UsageError } from "@/host/cli-client/cli-errors";
import { formatTime } from "@/host/cli-client/format-output";
import { sameHost } from "@/host/cli-client/local-booking";
import { parseCount } from "@/host/cli-client/parse-args";

/**
 * The CLI's side of a booking across nodes: `gpudesk reserve --nodes N
 * --gpus-per-node M` and `gpudesk run --booking ID -- cmd` on each node.
 */

export interface MultiNodeOptions {
  nodes?: string;
  gpusPerNode?: string;
  model?: string;
  /** `--part HOST:N` (N GPUs there) or `--part HOST:0,1,2` (those GPUs), once per node, node 0 first. */
  part?: string[];
}

/** Whether the flags ask for a booking across nodes. */
export function asksForNodes(options: MultiNodeOptions): boolean {
  return options.nodes !== undefined || options.gpusPerNode !== undefined || (options.part?.length ?? 0) > 0;
}

/** One `--part`: "dgx-a:8" (8 GPUs of dgx-a) or "dgx-a:0,1,4" (those GPUs). */
export function parsePart(text: string): { host: string; gpus: number | number[] } {
  const match = /^([^:\s]{1,253}):(\d{1,4}(?:,\d{1,4})*)$/.exec(text.trim());
  if (!match) throw new UsageError(`--part "${text}" is not HOST:N (N GPUs of HOST) or HOST:0,1,… (those GPUs)`);
  const numbers = match[2].split(",").map(Number);
  if (numbers.length === 1) return { host: match[1], gpus: parseCount(match[2]) };
  return { host: match[1], gpus: numbers };
}

/**
 * The POST /api/v1/reservations body across nodes; the flags of a one-host
 * booking that do not apply are refused rather than ignored.
 */
export function multiNodeRequest(
  options: MultiNodeOptions & { host?: string; gpus?: string; count?: string; slices?: string; slice?: string },
  common: Record<string, unknown>,
): Record<string, unknown> {
  const parts = options.part ?? [];
  if (parts.length > 0) {
    if (options.nodes !== undefined || options.gpusPerNode !== undefined || options.model !== undefined) throw new UsageError("--part names each node itself: give it without --nodes, --gpus-per-node and --model");
    if (parts.length < 2) throw new UsageError("Across nodes needs two --part or more (one per node, node 0 first); one host is gpudesk reserve --host");
    for (const [flag, given] of [["--host", options.host], ["--gpus", options.gpus], ["-n", options.count], ["--slices", options.slices], ["--slice", options.slice]] as const) {
      if (given !== undefined) throw new UsageError(`${flag} books one host; across nodes give each node as --part HOST:N`);
    }
    return { parts: parts.map(parsePart), ...common };
  }
  if (options.nodes === undefined || options.gpusPerNode === undefined) throw new UsageError("Across nodes needs both --nodes and --gpus-per-node");
  for (const [flag, given] of [["--host", options.host], ["--gpus", options.gpus], ["-n", options.count], ["--slices", options.slices], ["--slice", options.slice]] as const) {
    if (given !== undefined) throw new UsageError(`${flag} books one host; across nodes give --nodes, --gpus-per-node and --model`);
  }
  return { nodes: parseCount(options.nodes, "nodes"), gpusPerNode: parseCount(options.gpusPerNode), ...(options.model !== undefined ? { model: options.model } : {}), ...common };
}

/** What `gpudesk reserve --nodes` prints: the booking, then each node's launch lines. */
export function formatMultiNodeBooking(booking: MultiNodeBookingView): string {
  const lines = [
    `Booking ${booking.id}: ${booking.label} on ${booking.parts.map((part) => part.host.name).join(", ")}`,
    `  ${formatTime(booking.startsAt)} to ${formatTime(booking.endsAt)}: ${booking.purpose}`,
    ...(booking.explanation ? [`  Chosen: ${booking.explanation}`] : []),
    ...booking.warnings.map((warning) => `  Warning: ${warning}`),
    "",
    `On each node: gpudesk run --booking ${booking.id} -- python train.py`,
  ];
  for (const part of booking.parts) {
    const node = part.launch.node;
    if (!node) continue;
    lines.push("", `${nodeOfLabel(node.nodeRank, node.nodeCount)}: ${part.host.name} GPUs ${part.launch.cudaVisibleDevices} (part ${part.id})`, `  ${node.exportLine}`, `  ${node.torchrun}`);
    if (node.nccl) lines.push(`  ${node.nccl}`);
  }
  const first = booking.parts[0]?.launch.node;
  if (first) lines.push("", "With MPI, once from node 1:", `  ${first.mpirun}`);
  return `${lines.join("\n")}\n`;
}

/**
 * The part of a booking that this machine holds. `gpudesk run --booking`
 * runs the command with that node's GPUs and rank; on a machine that holds
 * no part it refuses, naming the hosts that do.
 */
export function partOnThisHost(booking: BookingView, hostname: string): { id: string; hostName: string } {
  const parts = booking.multiNode?.parts ?? [{ id: booking.id, host: booking.host }];
  const here = parts.find((part) => sameHost(part.host.name, hostname));
  if (!here) {
    const where = parts.map((part) => part.host.name).join(", ");
    throw new UsageError(`This machine, ${hostname}, holds no part of booking ${booking.multiNode?.id ?? booking.id} (its hosts: ${where}): run the command on one of them`);
  }
  return { id: here.id, hostName: here.host.name };
}

/** The environment `gpudesk run --booking` gives the command: the node's launch settings, with its part's proof. */
export function nodeEnvironment(part: BookingView): Record<string, string> {
  if (part.state !== "active") throw new UsageError(`Booking ${part.id} is ${part.state}${part.state === "scheduled" ? `: it starts at ${formatTime(part.startsAt)}` : ""}`);
  if (part.launch.node) return part.launch.node.env;
  // A booking of one host runs the same way, as its only node.
  return {
    CUDA_DEVICE_ORDER: part.launch.cudaDeviceOrder,
    CUDA_VISIBLE_DEVICES: part.launch.cudaVisibleDevices,
    ...(part.launch.reservationValue ? { GPUDESK_RESERVATION: part.launch.reservationValue } : {}),
  };
}

/** The rank MPI gave this process (Open MPI's OMPI_COMM_WORLD_*, MPICH's PMI_RANK and MPI_LOCALRANKID); null outside mpirun. */
export function mpiRank(env: Readonly<Record<string, string | undefined>>): { rank: number; localRank: number } | null {
  const read = (name: string) => (env[name] !== undefined && /^\d{1,6}$/.test(env[name] as string) ? Number(env[name]) : null);
  const rank = read("OMPI_COMM_WORLD_RANK") ?? read("PMI_RANK");
  const localRank = read("OMPI_COMM_WORLD_LOCAL_RANK") ?? read("MPI_LOCALRANKID");
  return rank === null || localRank === null ? null : { rank, localRank };
}

/**
 * The processes `gpudesk run --booking` starts on this node, each with its
 * environment: one (the node's lines; the command is torchrun or does its
 * own spawning) by default; with `perGpu`, one per GPU of the node, each
 * with RANK, LOCAL_RANK and LOCAL_WORLD_SIZE (perGpuEnvironment); under
 * mpirun, which started one rank per GPU, the one rank MPI named.
 */
export function rankEnvironments(part: BookingView, perGpu: boolean, env: Readonly<Record<string, string | undefined>> = process.env): Record<string, string>[] {
  const nodeEnv = nodeEnvironment(part);
  const node = part.launch.node;
  if (!node) return [nodeEnv];
  const mpi = mpiRank(env);
  const perNode = Number(node.env.NPROC_PER_NODE);
  if (mpi) {
    if (mpi.localRank >= perNode) throw new UsageError(`mpirun started local rank ${mpi.localRank} on ${part.host.name}, which holds ${perNode} GPU${perNode === 1 ? "" : "s"} of this booking: start ${perNode} rank${perNode === 1 ? "" : "s"} a node (--map-by ppr:${perNode}:node)`);
    return [perGpuEnvironment({ ...node, env: nodeEnv }, mpi.localRank, mpi.rank)];
  }
  if (!perGpu) return [nodeEnv];
  return Array.from({ length: perNode }, (_, localRank) => perGpuEnvironment({ ...node, env: nodeEnv }, localRank));
}
