import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface FakeIbPort {
  state?: string;
  rate?: string;
  linkLayer?: "InfiniBand" | "Ethernet";
  /** The full GID 0, eight groups of four hex digits. */
  gid?: string;
}

/**
 * Writes a tree shaped like /sys/class/infiniband under `root`, as the
 * kernel lays it out: <device>/ports/<n>/{state,rate,link_layer,gids/0} and
 * <device>/device/net/<interface>/.
 */
export function writeFakeInfiniband(root: string, devices: Record<string, { netDevice?: string; ports: Record<number, FakeIbPort> }>): string {
  for (const [name, device] of Object.entries(devices)) {
    if (device.netDevice) mkdirSync(path.join(root, name, "device", "net", device.netDevice), { recursive: true });
    for (const [number, port] of Object.entries(device.ports)) {
      const dir = path.join(root, name, "ports", number);
      mkdirSync(path.join(dir, "gids"), { recursive: true });
      writeFileSync(path.join(dir, "state"), `${port.state ?? "4: ACTIVE"}\n`);
      writeFileSync(path.join(dir, "rate"), `${port.rate ?? "200 Gb/sec (4X HDR)"}\n`);
      writeFileSync(path.join(dir, "link_layer"), `${port.linkLayer ?? "InfiniBand"}\n`);
      writeFileSync(path.join(dir, "gids", "0"), `${port.gid ?? "fe80:0000:0000:0000:0c42:a103:0065:8f3a"}\n`);
    }
  }
  return root;
}
