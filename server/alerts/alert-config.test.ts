import { describe, expect, it } from "vitest";
import { alertConfigFromEnv, DEFAULT_ALERT_CONFIG } from "@/server/alerts/alert-config";
import { ConfigError, parseEnv } from "@/server/core/env";

/** An environment with only these variables (NODE_ENV is required by the type, not by the parser). */
const environment = (variables: Record<string, string> = {}): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...variables });

describe("alert configuration from the environment", () => {
  it("defaults to the documented hold times", () => {
    expect(alertConfigFromEnv(parseEnv(environment()))).toEqual(DEFAULT_ALERT_CONFIG);
  });

  it("reads durations in seconds, minutes or hours", () => {
    const config = alertConfigFromEnv(
      parseEnv(environment({ GPUDESK_ALERT_CONFLICT_AFTER: "3s", GPUDESK_ALERT_IDLE_AFTER: "2h", GPUDESK_ALERT_CLEAR_AFTER: "90" })),
    );
    expect(config.holdMs.conflict).toBe(3000);
    expect(config.holdMs.idle_booking).toBe(7_200_000);
    expect(config.clearMs).toBe(90_000);
  });

  it("names a wrong variable", () => {
    expect(() => parseEnv(environment({ GPUDESK_ALERT_MEMORY_AFTER: "soon" }))).toThrow(ConfigError);
    expect(() => parseEnv(environment({ GPUDESK_ALERT_MEMORY_AFTER: "soon" }))).toThrow(/GPUDESK_ALERT_MEMORY_AFTER/);
  });
});
