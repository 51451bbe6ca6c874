import { type UnitName, unitsPhrase } from "@/lib/domain/gpu-availability";
import type { MultiNodeBookingView, BookingView } from "@/lib/domain/booking-types";

/**
 * A booking across nodes, as every surface names it: one booking made of
 * parts, each part an ordinary booking of one host. The words and the
 * figures live here, once, so that the list, the schedule, the mail, the
 * calendar and the CLI say the same thing.
 */

/** Words that name the maker or the product line, not the model. */
const VENDOR_WORDS = new Set(["nvidia", "tesla", "geforce", "quadro"]);
/** Words that only make sense with the word after them ("RTX 4090"). */
const PREFIX_WORDS = new Set(["rtx", "gtx"]);

/** "H100" for "NVIDIA H100 80GB HBM3", "A100" for "NVIDIA A100-SXM4-80GB", "RTX 4090" for "NVIDIA GeForce RTX 4090". */
export function shortModel(gpuName: string): string {
  const words = gpuName.trim().split(/\s+/).filter((word) => word && !VENDOR_WORDS.has(word.toLowerCase()));
  if (words.length === 0) return gpuName.trim() || "GPU";
  if (PREFIX_WORDS.has(words[0].toLowerCase()) && words.length > 1) return `${words[0]} ${words[1]}`;
  return words[0].split("-")[0];
}

/** What a booking across nodes is: how many nodes, GPUs on each, of which model. */
export interface MultiNodeShape {
  nodeCount: number;
  /** GPUs of each part, in node order (the same number on every node in the common case). */
  gpusPerPart: number[];
  /** The short model of the GPUs ("H100"), or null when the parts hold different models. */
  model: string | null;
}

/**
 * "2 × 4 H100"; "8 + 4 H100" when the parts differ in size (node by node,
 * so that "… on node-a and node-b" after it reads right; it said "12 H100
 * GPUs on 2 nodes", and "… on 2 nodes on node-a and node-b" in a sentence).
 */
export function multiNodeLabel(shape: MultiNodeShape): string {
  const model = shape.model ? ` ${shape.model}` : "";
  const sizes = new Set(shape.gpusPerPart);
  if (sizes.size === 1) return `${shape.nodeCount} × ${shape.gpusPerPart[0]}${model}`;
  return `${shape.gpusPerPart.join(" + ")}${shape.model ? model : " GPUs"}`;
}

/** "node-a and node-b", "node-a, node-b and node-c": hosts in a sentence. */
export function hostList(names: readonly string[]): string {
  return names.length <= 2 ? names.join(" and ") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** "2 × 4 H100 on node-a and node-b": a booking across nodes (`label`, multiNodeLabel) and its hosts in rank order. */
function labelOnHosts(label: string, hostNames: readonly string[]): string {
  return `${label} on ${hostList(hostNames)}`;
}

/**
 * A booking across nodes named once, with every node, as every surface says
 * it (the card, the idle notice and its mail, iCal, the audit log, the CLI's
 * release, the node-failure notice): "2 × 8 H100 on h100-03 and h100-04".
 * `parts` in rank order, each with its host and its GPUs' names.
 */
export function acrossNodesPhrase(parts: readonly { host: { name: string }; gpus: readonly { name: string }[] }[]): string {
  return labelOnHosts(multiNodeLabel(shapeOf(parts)), parts.map((part) => part.host.name));
}

/** "node 1 of 2": ranks count from 0 in the launch lines, people count from 1. */
export function nodeOfLabel(nodeRank: number, nodeCount: number): string {
  return `node ${nodeRank + 1} of ${nodeCount}`;
}

/** "2 × 4 H100, node 1 of 2": one part of the booking. */
export function partLabel(shape: MultiNodeShape, nodeRank: number): string {
  return `${multiNodeLabel(shape)}, ${nodeOfLabel(nodeRank, shape.nodeCount)}`;
}

/** The model the parts share, or null: the label says "H100" only when every GPU is one. */
export function commonModel(gpuNames: readonly string[]): string | null {
  const models = new Set(gpuNames.map(shortModel));
  return models.size === 1 ? [...models][0] : null;
}

/** What a booking holds, in one phrase: "GPUs 0, 1 on node-a", or "2 × 4 H100 on node-a and node-b" for a booking across nodes. */
export function bookedPhrase(view: { host: { name: string }; gpus: readonly UnitName[]; multiNode?: { label: string; parts: readonly { host: { name: string } }[] } }): string {
  if (view.multiNode) return labelOnHosts(view.multiNode.label, view.multiNode.parts.map((part) => part.host.name));
  return `${unitsPhrase(view.gpus)} on ${view.host.name}`;
}

/** The shape of a booking across nodes from its parts in rank order (each with its GPUs' names), for its label. */
export function shapeOf(parts: readonly { gpus: readonly { name: string }[] }[]): MultiNodeShape {
  return {
    nodeCount: parts.length,
    gpusPerPart: parts.map((part) => part.gpus.length),
    model: commonModel(parts.flatMap((part) => part.gpus.map((gpu) => gpu.name))),
  };
}

/** A booking's purpose as the schedule and week view show it: a part of a booking across nodes says which ("2 × 4 H100, node 1 of 2 · pretrain"). */
export function purposeWithPart(purpose: string, multiNode: { partLabel: string } | undefined): string {
  return multiNode ? `${multiNode.partLabel} · ${purpose}` : purpose;
}

/** The answer to a booking across nodes, from its parts' views in rank order. */
export function multiNodeSummary(parts: BookingView[]): MultiNodeBookingView {
  const first = parts[0];
  return {
    id: first.multiNode?.id ?? first.id,
    nodeCount: parts.length,
    label: first.multiNode?.label ?? multiNodeLabel(shapeOf(parts)),
    startsAt: first.startsAt,
    endsAt: first.endsAt,
    purpose: first.purpose,
    parts,
    warnings: [],
  };
}

/**
 * The first shape "Across nodes" offers: 2 nodes of as many GPUs (8 at most)
 * as a person's GPUs-at-once limit lets both hold, so that a fresh install
 * (8 GPUs per person) offers 2 × 4, a shape its own policy books.
 */
export function firstNodeShape(maxGpusAtOnce: number): { nodes: string; gpusPerNode: string } {
  return { nodes: "2", gpusPerNode: String(Math.max(1, Math.min(8, Math.floor(maxGpusAtOnce / 2)))) };
}

/** Why a shape is over the person's GPUs-at-once limit, naming the limit and who changes it; null when it fits. */
export function shapeOverLimit(nodes: number, gpusPerNode: number, maxGpusAtOnce: number): string | null {
  if (!Number.isInteger(nodes) || !Number.isInteger(gpusPerNode) || nodes * gpusPerNode <= maxGpusAtOnce) return null;
  return `${nodes} × ${gpusPerNode} is ${nodes * gpusPerNode} GPUs; the booking policy lets a person hold ${maxGpusAtOnce} at once (an admin changes it in Admin → Policies)`;
}
