/**
 * The GPU-to-GPU links of one host, read from `nvidia-smi topo -m`. Pure:
 * the agent or an operator supplies the text, tests use recorded layouts.
 */

/** How two GPUs talk, best first: NVLink (with its bonded link count), then PCIe paths from nearest to farthest. */
export type LinkKind = "NV" | "PIX" | "PXB" | "PHB" | "NODE" | "SYS";

export interface Link {
  kind: LinkKind;
  /** Bonded NVLinks for "NV" (NV4 → 4); 0 otherwise. */
  nvlinks: number;
}

export interface Topology {
  /** GPU indices in the order of the matrix. */
  gpus: number[];
  /** `links.get("0-1")`: the link between GPU 0 and GPU 1 (either order is stored). */
  links: Map<string, Link>;
}

const PCIE_KINDS = new Set<LinkKind>(["PIX", "PXB", "PHB", "NODE", "SYS"]);

// Terminal escapes: nvidia-smi underlines the header row.
const ESCAPES = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

function parseLink(cell: string): Link | null {
  const nv = /^NV(\d+)$/.exec(cell);
  if (nv) return { kind: "NV", nvlinks: Number(nv[1]) };
  return PCIE_KINDS.has(cell as LinkKind) ? { kind: cell as LinkKind, nvlinks: 0 } : null;
}

/**
 * Reads the GPU×GPU matrix of `nvidia-smi topo -m`; NIC rows and columns,
 * affinity columns and the legend are skipped. Null when the text holds no
 * matrix (e.g. an error message).
 */
export function parseTopology(text: string): Topology | null {
  const lines = text.replace(ESCAPES, "").split(/\r?\n/);
  const headerAt = lines.findIndex((line) => /^\s+GPU\d+(\s|$)/.test(line));
  if (headerAt < 0) return null;
  const columns = lines[headerAt].trim().split("\t").map((cell) => cell.trim());
  const gpuColumns = columns.map((name, column) => ({ column, index: /^GPU(\d+)$/.exec(name)?.[1] })).filter((entry) => entry.index !== undefined);

  const gpus: number[] = [];
  const links = new Map<string, Link>();
  for (const line of lines.slice(headerAt + 1)) {
    const row = /^GPU(\d+)\t(.*)$/.exec(line);
    if (!row) {
      if (line.trim() === "" || /^(NIC|mlx)/.test(line)) continue;
      break;
    }
    const from = Number(row[1]);
    gpus.push(from);
    const cells = row[2].split("\t").map((cell) => cell.trim());
    for (const { column, index } of gpuColumns) {
      const link = parseLink(cells[column] ?? "");
      if (link && Number(index) !== from) links.set(linkKey(from, Number(index)), link);
    }
  }
  return gpus.length > 0 ? { gpus, links } : null;
}

function linkKey(a: number, b: number): string {
  return a < b ? `${a}-${b}` : `${b}-${a}`;
}

export function linkBetween(topology: Topology, a: number, b: number): Link | null {
  return topology.links.get(linkKey(a, b)) ?? null;
}

/** Higher is closer: any NVLink beats any PCIe path; more bonded links beat fewer. */
export function linkScore(link: Link | null): number {
  if (!link) return 0;
  if (link.kind === "NV") return 100 + link.nvlinks;
  return { PIX: 50, PXB: 40, PHB: 30, NODE: 20, SYS: 10 }[link.kind];
}

/** "NVLink-connected (NV4)", "on one PCIe switch": a link in words. */
export function describeLink(link: Link | null): string {
  if (!link) return "topology unknown";
  switch (link.kind) {
    case "NV":
      return `NVLink-connected (NV${link.nvlinks})`;
    case "PIX":
      return "on one PCIe switch";
    case "PXB":
      return "behind the same PCIe bridges";
    case "PHB":
      return "on one PCIe host bridge";
    case "NODE":
      return "on one NUMA node, over PCIe";
    case "SYS":
      return "across NUMA nodes";
  }
}
