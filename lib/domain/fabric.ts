import * as z from "zod";

/**
 * A host's network fabric: the RDMA devices its agent read from
 * /sys/class/infiniband (InfiniBand, or RoCE on Ethernet), and the label an
 * admin gave it (a rack, switch or fabric name). Booking across nodes puts
 * the nodes of one job on one fabric; each node's NCCL hints come from here.
 */

/** InfiniBand's default subnet prefix: every subnet whose manager was not told otherwise has it, so it tells no two fabrics apart. */
export const DEFAULT_SUBNET_PREFIX = "fe80:0000:0000:0000";

const deviceName = z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, "a device name of letters, digits and _.:-");

export const fabricPortSchema = z.strictObject({
  port: z.int().min(1).max(255),
  /** The port's state as the kernel names it: "ACTIVE", "DOWN", "INIT", … */
  state: z.string().trim().toUpperCase().max(32),
  /** "200 Gb/sec (4X HDR)" → 200; null where unreadable. */
  rateGbps: z.number().min(0).max(100_000).nullable(),
  linkLayer: z.enum(["InfiniBand", "Ethernet", "unknown"]),
  /** The first 64 bits of the port's GID 0 ("fe80:0000:0000:0000"): the InfiniBand subnet it is on. */
  subnetPrefix: z.string().regex(/^[0-9a-f]{4}(?::[0-9a-f]{4}){3}$/).nullable(),
  /** The network interface on this device ("ib0", "ens1f0np0"): what NCCL_SOCKET_IFNAME names. */
  netDevice: deviceName.nullable(),
});

/** A network interface of the host and its addresses (IPv4 or IPv6, without the prefix length): what NCCL_SOCKET_IFNAME may name. */
export const netInterfaceSchema = z.strictObject({
  name: deviceName,
  addresses: z.array(z.string().regex(/^[0-9A-Fa-f:.%a-z]{2,64}$/, "an IP address")).max(16),
});

export const hostFabricSchema = z.strictObject({
  devices: z
    .array(z.strictObject({ name: deviceName, ports: z.array(fabricPortSchema).max(16) }))
    .max(64),
  /**
   * The host's interfaces that have an address (the agent's hello sends them beside the fabric, as
   * `interfaces`; stored here). Absent: the agent did not say (older than the field), so nothing is known.
   */
  interfaces: z.array(netInterfaceSchema).max(64).optional(),
});

export type NetInterface = z.infer<typeof netInterfaceSchema>;

export type FabricPort = z.infer<typeof fabricPortSchema>;
export type HostFabric = z.infer<typeof hostFabricSchema>;

/** An admin's fabric label: a rack, switch or fabric name. */
export const fabricLabelSchema = z.strictObject({
  fabricLabel: z
    .string()
    .trim()
    .max(64, "At most 64 characters")
    .regex(/^[\w .:/-]*$/, "Letters, digits, spaces and _.:/- only")
    .nullable()
    .transform((label) => (label === "" ? null : label)),
});

/** The ports that carry traffic now. */
export function activePorts(fabric: HostFabric | null): (FabricPort & { device: string })[] {
  if (!fabric) return [];
  return fabric.devices.flatMap((device) => device.ports.filter((port) => port.state === "ACTIVE").map((port) => ({ ...port, device: device.name })));
}

/**
 * Which fabric a host is on, for placement: the admin's label where there is
 * one, else the InfiniBand subnet its active ports are on (unless that is the
 * default prefix, which many separate fabrics share); null: not known.
 */
export function fabricKey(fabric: HostFabric | null, label: string | null): { key: string; said: string } | null {
  if (label) return { key: `label:${label}`, said: `fabric "${label}"` };
  const prefixes = [...new Set(activePorts(fabric).filter((port) => port.linkLayer === "InfiniBand" && port.subnetPrefix && port.subnetPrefix !== DEFAULT_SUBNET_PREFIX).map((port) => port.subnetPrefix as string))].sort();
  if (prefixes.length === 0) return null;
  return { key: `ib:${prefixes.join(",")}`, said: `InfiniBand subnet ${prefixes.join(", ")}` };
}

/** Interfaces NCCL should not bootstrap over: loopback, and the virtual ones containers and VMs add. */
const VIRTUAL_INTERFACE = /^(lo|docker\d*|veth.*|br-.*|virbr.*|cni.*|flannel.*|cali.*|tun.*|tap.*)$/;

/**
 * NCCL's hints for a host: its active RDMA devices (NCCL_IB_HCA) and an
 * interface that has an address for NCCL_SOCKET_IFNAME (the bootstrap
 * and the TCP fallback need one): an HCA's own network device where it
 * has an address (IPoIB), else the host's first other interface with one.
 * Where the agent reported no interfaces, or none has an address, there is
 * no guess: `socketInterface` is null and `socketNote` says why.
 */
export function ncclHints(fabric: HostFabric | null): { ibDevices: string[]; socketInterface: string | null; socketNote: string | null } | null {
  const ports = activePorts(fabric);
  if (ports.length === 0) return null;
  const ibDevices = [...new Set(ports.map((port) => port.device))];
  const known = fabric?.interfaces;
  if (!known) return { ibDevices, socketInterface: null, socketNote: "this host's agent reports no network interfaces (an older agent): set it to the interface that reaches MASTER_ADDR" };
  const addressed = known.filter((entry) => entry.addresses.length > 0 && !VIRTUAL_INTERFACE.test(entry.name)).map((entry) => entry.name);
  const own = ports.map((port) => port.netDevice).find((device) => device !== null && addressed.includes(device));
  const socketInterface = own ?? addressed[0] ?? null;
  return { ibDevices, socketInterface, socketNote: socketInterface ? null : "no interface of this host has an address: set it to the interface that reaches MASTER_ADDR" };
}

/** "mlx5_0 port 1: ACTIVE, 200 Gb/s InfiniBand (ib0)": one line per port, as the host page lists them. */
export function describePort(device: string, port: FabricPort): string {
  const rate = port.rateGbps === null ? "" : `, ${port.rateGbps} Gb/s`;
  const layer = port.linkLayer === "Ethernet" ? " RoCE" : port.linkLayer === "InfiniBand" ? " InfiniBand" : "";
  return `${device} port ${port.port}: ${port.state}${rate}${layer}${port.netDevice ? ` (${port.netDevice})` : ""}`;
}

/** A stored fabric (JSON text in the database), validated again on the way out: null when absent or not one. */
export function parseStoredFabric(text: string | null): HostFabric | null {
  if (!text) return null;
  try {
    const parsed = hostFabricSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
