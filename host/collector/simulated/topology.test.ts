import { describe, expect, it } from "vitest";
import { linkBetween, parseTopology } from "@/server/hosts/topology";
import { simulatedFleet } from "./fleet";
import { simulatedTopologyText } from "./topology";

describe("the simulated hosts' topo -m", () => {
  it("reads back as NVSwitch on SXM boards and as PCIe pairs on GeForce boards", () => {
    const [h100, a100, rtx] = simulatedFleet({ seed: 42 });
    const nvswitch = parseTopology(simulatedTopologyText(h100));
    expect(nvswitch?.gpus).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(linkBetween(nvswitch!, 0, 7)).toEqual({ kind: "NV", nvlinks: 18 });
    expect(linkBetween(parseTopology(simulatedTopologyText(a100))!, 1, 3)).toEqual({ kind: "NV", nvlinks: 12 });
    expect(linkBetween(parseTopology(simulatedTopologyText(rtx))!, 0, 1)?.kind).toBe("PIX");
  });

  it("puts PCIe pairs behind switches and halves on NUMA nodes", () => {
    const rtx = simulatedFleet({ seed: 42 })[2];
    const eight = { ...rtx, gpus: Array.from({ length: 8 }, (_, index) => ({ index, uuid: `GPU-sim-${index}`, pciBusId: `00000000:${index}1:00.0` })) };
    const topo = parseTopology(simulatedTopologyText(eight))!;
    expect(linkBetween(topo, 2, 3)?.kind).toBe("PIX");
    expect(linkBetween(topo, 1, 2)?.kind).toBe("NODE");
    expect(linkBetween(topo, 3, 4)?.kind).toBe("SYS");
  });

  it("lists only the GPU of a host whose one GPU is split into MIG slices, as topo -m does", () => {
    const mig = simulatedFleet({ seed: 42 }).find((spec) => spec.hostName === "sim-h100-mig")!;
    const topo = parseTopology(simulatedTopologyText(mig));
    expect(topo?.gpus).toEqual([0]);
    expect(linkBetween(topo!, 0, 0)).toBeNull();
  });
});
