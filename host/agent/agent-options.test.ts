import { describe, expect, it } from "vitest";
import { agentOptionsSchema, parseDuration } from "@/host/agent/agent-options";

const base = { server: "http://gpudesk.lab:3000", token: "t" };

describe("the agent's --interval", () => {
  it("takes 2 readings a second as --interval 500ms, and 1s by default", () => {
    expect(agentOptionsSchema.parse({ ...base, interval: "500ms" }).interval).toBe(500);
    expect(agentOptionsSchema.parse({ ...base, interval: "0.5s" }).interval).toBe(500);
    expect(agentOptionsSchema.parse(base).interval).toBe(1000);
    expect(parseDuration("2m")).toBe(120_000);
  });

  it("refuses what is not a duration, faster than 100ms or slower than 10m, with the reason", () => {
    const issue = (interval: string) => agentOptionsSchema.safeParse({ ...base, interval }).error?.issues[0]?.message;
    expect(issue("fast")).toMatch(/not a duration/);
    expect(issue("50ms")).toBe("must be at least 100ms");
    expect(issue("11m")).toBe("must be at most 10m");
  });
});
