import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { type FabricPort, type HostFabric, hostFabricSchema } from "@/lib/domain/fabric";

/** Where Linux lists RDMA devices (InfiniBand HCAs and RoCE NICs alike). */
export const SYSFS_INFINIBAND = "/sys/class/infiniband";

async function text(file: string): Promise<string | null> {
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    return null;
  }
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

/** "200 Gb/sec (4X HDR)" → 200; "2.5 Gb/sec (1X SDR)" → 2.5. */
export function parseRate(rate: string | null): number | null {
  const match = rate ? /^(\d+(?:\.\d+)?)\s*Gb\/sec/.exec(rate) : null;
  return match ? Number(match[1]) : null;
}

/** "4: ACTIVE" → "ACTIVE". */
export function parseState(state: string | null): string {
  return state ? (state.split(":").pop() ?? "").trim().toUpperCase() || "UNKNOWN" : "UNKNOWN";
}

async function readPort(deviceDir: string, port: string, netDevice: string | null): Promise<FabricPort | null> {
  const portDir = path.join(deviceDir, "ports", port);
  const number = Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 255) return null;
  const layer = await text(path.join(portDir, "link_layer"));
  const gid = await text(path.join(portDir, "gids", "0"));
  return {
    port: number,
    state: parseState(await text(path.join(portDir, "state"))),
    rateGbps: parseRate(await text(path.join(portDir, "rate"))),
    linkLayer: layer === "InfiniBand" || layer === "Ethernet" ? layer : "unknown",
    subnetPrefix: gid && /^[0-9a-f]{4}(?::[0-9a-f]{4}){7}$/.test(gid) ? gid.split(":").slice(0, 4).join(":") : null,
    netDevice,
  };
}

/**
 * The host's RDMA devices and their ports, read from `root` (the sysfs
 * directory; tests give a fake tree). Null where the directory is absent or
 * empty: a host without InfiniBand or RoCE. Checked against the protocol's
 * schema before it leaves, as the server checks it again on arrival.
 */
export async function readInfiniband(root: string = SYSFS_INFINIBAND): Promise<HostFabric | null> {
  const devices: HostFabric["devices"] = [];
  for (const name of (await names(root)).slice(0, 64)) {
    const deviceDir = path.join(root, name);
    const netDevice = (await names(path.join(deviceDir, "device", "net")))[0] ?? null;
    const ports: FabricPort[] = [];
    for (const port of (await names(path.join(deviceDir, "ports"))).slice(0, 16)) {
      const read = await readPort(deviceDir, port, netDevice);
      if (read) ports.push(read);
    }
    devices.push({ name, ports });
  }
  if (devices.length === 0) return null;
  const checked = hostFabricSchema.safeParse({ devices });
  return checked.success ? checked.data : null;
}
