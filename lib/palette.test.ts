import { describe, expect, it } from "vitest";
import { PALETTE_SIZE, assignSlots, paletteColour, paletteFor, preferredSlot } from "@/lib/palette";

describe("the palette", () => {
  it("gives 12 and 16 people on one surface all different colours, whatever their order", () => {
    for (const count of [12, 16]) {
      const ids = Array.from({ length: count }, (_, i) => `user-${i * 7919}`);
      const slots = assignSlots(ids);
      expect(new Set(slots.values()).size).toBe(count);
      expect(assignSlots([...ids].reverse())).toEqual(slots);
    }
  });

  it("keeps a key's colour from its key, not its position (a host between 'By host' and 'By model')", () => {
    const byHost = paletteFor(["node-a", "node-b", "node-c"]);
    const again = paletteFor(["node-c", "node-a", "node-b"]);
    expect(byHost("node-b")).toEqual(again("node-b"));
    expect(byHost("node-a").slot).toBe(preferredSlot("node-a"));
  });

  it("puts far-apart hues in neighbouring slots, and dark-mode shades dark text can sit on", () => {
    for (let slot = 0; slot < PALETTE_SIZE; slot += 1) {
      const hue = (s: number) => Number(paletteColour(s).chart.split(" ")[2].replace(")", ""));
      const gap = Math.abs(hue(slot) - hue(slot + 1)) % 360;
      expect(Math.min(gap, 360 - gap)).toBeGreaterThanOrEqual(90);
      expect(Number(paletteColour(slot).dark.slice(6).split(" ")[0])).toBeGreaterThanOrEqual(0.56);
    }
  });
});
