import { describe, expect, it } from "vitest";
import { readInterfaces } from "@/host/collector/fabric/read-interfaces";

describe("the interfaces an agent reports", () => {
  it("lists each interface with its addresses, leaves out loopback and interfaces without one", () => {
    const entry = (address: string, internal = false) => ({ address, internal, netmask: "", family: address.includes(":") ? ("IPv6" as const) : ("IPv4" as const), mac: "00:00:00:00:00:00", cidr: null, scopeid: 0 });
    const read = () => ({ lo: [entry("127.0.0.1", true)], ib0: [entry("192.168.100.7"), entry("fe80::1")], eth0: [entry("10.0.0.7")], "bad name!": [entry("10.0.0.8")], down: [] });
    expect(readInterfaces(read as never)).toEqual([
      { name: "ib0", addresses: ["192.168.100.7", "fe80::1"] },
      { name: "eth0", addresses: ["10.0.0.7"] },
    ]);
  });
});
