import { describe, expect, it } from "vitest";
import { keptSentence } from "@/lib/domain/idle-release";

const clock = (iso: string) => iso.slice(11, 16);

describe("keptSentence", () => {
  it("says the keep took, when the release could come at the earliest, and the keeps left", () => {
    expect(keptSentence({ releaseAt: "2026-12-05T16:30:00.000Z", keepsLeft: 1 }, clock)).toBe(
      "Kept: the idle clock starts again now. It is released at 16:30 at the earliest if it stays idle. You can keep it once more.",
    );
    expect(keptSentence({ releaseAt: null, keepsLeft: 0 }, clock)).toBe("Kept: the idle clock starts again now. No keeps left: use the GPUs or extend the booking to keep them.");
  });
});
