import os from "node:os";
import { type NetInterface, netInterfaceSchema } from "@/lib/domain/fabric";

/**
 * The host's network interfaces that have an address (loopback left out),
 * as the agent's hello reports them: NCCL_SOCKET_IFNAME must name one of
 * these, or NCCL's bootstrap fails. Read at the agent's start, with the fabric.
 */
export function readInterfaces(read: () => ReturnType<typeof os.networkInterfaces> = os.networkInterfaces): NetInterface[] {
  const found: NetInterface[] = [];
  for (const [name, entries] of Object.entries(read())) {
    const addresses = [...new Set((entries ?? []).filter((entry) => !entry.internal).map((entry) => entry.address))].slice(0, 16);
    if (addresses.length === 0) continue;
    const checked = netInterfaceSchema.safeParse({ name, addresses });
    if (checked.success) found.push(checked.data);
  }
  return found.slice(0, 64);
}
