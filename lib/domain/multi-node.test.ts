import { describe, expect, it } from "vitest";
import { acrossNodesPhrase, hostList, multiNodeLabel } from "@/lib/domain/multi-node";

const h100 = (count: number) => Array.from({ length: count }, () => ({ name: "NVIDIA H100 80GB HBM3" }));

describe("a booking across nodes, named once", () => {
  it("says its shape and every host in rank order", () => {
    expect(acrossNodesPhrase([{ host: { name: "h100-03" }, gpus: h100(8) }, { host: { name: "h100-04" }, gpus: h100(8) }])).toBe("2 × 8 H100 on h100-03 and h100-04");
    expect(acrossNodesPhrase([{ host: { name: "c" }, gpus: h100(2) }, { host: { name: "a" }, gpus: h100(2) }, { host: { name: "b" }, gpus: h100(2) }])).toBe("3 × 2 H100 on c, a and b");
  });

  it("names parts of different sizes node by node, so the phrase reads right (it said '12 H100 GPUs on 2 nodes on h100-04 and h100-03')", () => {
    expect(acrossNodesPhrase([{ host: { name: "h100-04" }, gpus: h100(8) }, { host: { name: "h100-03" }, gpus: h100(4) }])).toBe("8 + 4 H100 on h100-04 and h100-03");
    expect(multiNodeLabel({ nodeCount: 2, gpusPerPart: [2, 1], model: null })).toBe("2 + 1 GPUs");
    expect(hostList(["a"])).toBe("a");
  });
});
