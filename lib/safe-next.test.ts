import { describe, expect, it } from "vitest";
import { safeNext } from "@/lib/safe-next";

describe("safeNext", () => {
  it("keeps pages of this site, with their query and fragment", () => {
    expect(safeNext("/gpus/GPU-1")).toBe("/gpus/GPU-1");
    expect(safeNext("/reserve?gpus=1,2#form")).toBe("/reserve?gpus=1,2#form");
    expect(safeNext("/a/../usage")).toBe("/usage");
  });

  it.each([
    ["/\\evil.example/x"], // what /login?next=/%5Cevil.example/x decodes to
    ["/\t/evil.example"], // /%09/evil.example
    ["/\n/evil.example"],
    ["/\r\n/evil.example"],
    ["//evil.example"],
    ["\\\\evil.example"],
    ["/\\/evil.example"],
    ["/.//evil.example"],
    ["/%2e//evil.example"],
    ["https://evil.example/"],
    ["javascript:alert(1)"],
    [" /evil"],
    ["evil.example"],
    [""],
    [undefined],
    [null],
  ])("sends %j to the home page", (next) => {
    const target = safeNext(next);
    expect(target).toBe("/");
  });

  it("never returns something a browser would read as another host", () => {
    for (const next of ["/x//evil.example", "/%5C%5Cevil", "/?next=//evil.example"]) {
      const target = safeNext(next);
      expect(new URL(target, "http://site.example").host).toBe("site.example");
    }
  });
});
