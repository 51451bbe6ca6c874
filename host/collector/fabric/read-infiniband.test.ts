import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fabricKey, ncclHints } from "@/lib/domain/fabric";
import { readInfiniband } from "@/host/collector/fabric/read-infiniband";
import { writeFakeInfiniband } from "@/server/testing/fake-infiniband";

const roots: string[] = [];
const tree = () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "gpudesk-ib-"));
  roots.push(root);
  return root;
};
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

describe("the agent's reading of /sys/class/infiniband", () => {
  it("reads each device's ports: state, rate, link layer, subnet and interface", async () => {
    const root = writeFakeInfiniband(tree(), {
      mlx5_0: { netDevice: "ib0", ports: { 1: { gid: "fe80:0000:0000:00aa:0c42:a103:0065:8f3a" } } },
      mlx5_1: { netDevice: "ib1", ports: { 1: { state: "1: DOWN", rate: "10 Gb/sec (4X SDR)" } } },
      mlx5_2: { netDevice: "ens1f0np0", ports: { 1: { linkLayer: "Ethernet", rate: "100 Gb/sec (4X EDR)", gid: "fe80:0000:0000:0000:1270:fdff:fe2b:0001" } } },
    });
    const fabric = await readInfiniband(root);
    expect(fabric?.devices).toEqual([
      { name: "mlx5_0", ports: [{ port: 1, state: "ACTIVE", rateGbps: 200, linkLayer: "InfiniBand", subnetPrefix: "fe80:0000:0000:00aa", netDevice: "ib0" }] },
      { name: "mlx5_1", ports: [{ port: 1, state: "DOWN", rateGbps: 10, linkLayer: "InfiniBand", subnetPrefix: "fe80:0000:0000:0000", netDevice: "ib1" }] },
      { name: "mlx5_2", ports: [{ port: 1, state: "ACTIVE", rateGbps: 100, linkLayer: "Ethernet", subnetPrefix: "fe80:0000:0000:0000", netDevice: "ens1f0np0" }] },
    ]);
    // NCCL gets the devices that are up; the socket interface only once the agent's interfaces with addresses are known
    // (read beside the devices), the HCA's own first: never a guess.
    expect(ncclHints(fabric)).toMatchObject({ ibDevices: ["mlx5_0", "mlx5_2"], socketInterface: null });
    const interfaces = [{ name: "eth0", addresses: ["192.0.2.7"] }, { name: "ib0", addresses: ["10.0.0.7"] }];
    expect(ncclHints({ ...fabric!, interfaces })).toEqual({ ibDevices: ["mlx5_0", "mlx5_2"], socketInterface: "ib0", socketNote: null });
    expect(fabricKey(fabric, null)).toEqual({ key: "ib:fe80:0000:0000:00aa", said: "InfiniBand subnet fe80:0000:0000:00aa" });
    expect(fabricKey(fabric, "rack-3")).toEqual({ key: "label:rack-3", said: 'fabric "rack-3"' });
  });

  it("says nothing on a host without RDMA devices, and no fabric for the default subnet prefix alone", async () => {
    expect(await readInfiniband(path.join(tree(), "absent"))).toBeNull();
    const fabric = await readInfiniband(writeFakeInfiniband(tree(), { mlx5_0: { ports: { 1: {} } } }));
    expect(fabric?.devices[0].ports[0]).toMatchObject({ state: "ACTIVE", subnetPrefix: "fe80:0000:0000:0000", netDevice: null });
    expect(fabricKey(fabric, null)).toBeNull();
  });
});
