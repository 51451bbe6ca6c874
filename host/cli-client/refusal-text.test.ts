import { describe, expect, it } from "vitest";
import { refusalText } from "@/host/cli-client/api-client";
import { formatTime } from "@/host/cli-client/format-output";

/** CLI refusals were walls of text with millisecond ISO times (issue 51): one or two lines, local times. */
describe("a refusal in the terminal", () => {
  it("writes the server's times in this machine's zone, without milliseconds", () => {
    const text = refusalText("node-a GPU 2 is booked by alice until 2026-12-07T15:04:00.000Z");
    expect(text).toBe(`node-a GPU 2 is booked by alice until ${formatTime("2026-12-07T15:04:00.000Z")}`);
    expect(text).not.toMatch(/T\d\d:\d\d|\.000Z/);
  });

  it("says at most two of its field messages, on a second line", () => {
    const fields = { gpus: "GPU 9 does not exist on node-a", startsAt: "must be after 2026-12-07T15:04:05.123Z", durationMinutes: "at most 1440", purpose: "required" };
    const text = refusalText("The booking is not valid", fields);
    const lines = text.split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe("The booking is not valid");
    expect(lines[1]).toBe(`  gpus: GPU 9 does not exist on node-a; startsAt: must be after ${formatTime("2026-12-07T15:04:05.123Z")}; and 2 more`);
  });
});
