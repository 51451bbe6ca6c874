import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv as parseEnvOf } from "@/server/core/env";

const parseEnv = (variables: Record<string, string>) => parseEnvOf(variables as NodeJS.ProcessEnv);

describe("REDIS_URL and the cluster settings", () => {
  it("is optional: without it there is no Redis", () => {
    expect(parseEnv({}).REDIS_URL).toBeUndefined();
    expect(parseEnv({ REDIS_URL: "" }).REDIS_URL).toBeUndefined();
    expect(parseEnv({}).GPUDESK_LEADER_TTL_MS).toBe(10_000);
    expect(parseEnv({}).GPUDESK_REDIS_PREFIX).toBe("gpudesk");
  });

  it("takes redis:// and rediss:// URLs", () => {
    expect(parseEnv({ REDIS_URL: "redis://127.0.0.1:6379" }).REDIS_URL).toBe("redis://127.0.0.1:6379");
    expect(parseEnv({ REDIS_URL: "rediss://:secret@redis.lab:6380/2" }).REDIS_URL).toBe("rediss://:secret@redis.lab:6380/2");
  });

  it("names the variable and the expected form when the URL is wrong", () => {
    for (const wrong of ["127.0.0.1:6379", "http://redis.lab", "redis://", "not a url"]) {
      expect(() => parseEnv({ REDIS_URL: wrong })).toThrow(ConfigError);
      expect(() => parseEnv({ REDIS_URL: wrong })).toThrow(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    }
    expect(() => parseEnv({ GPUDESK_LEADER_TTL_MS: "10" })).toThrow(/GPUDESK_LEADER_TTL_MS/);
    expect(() => parseEnv({ GPUDESK_REDIS_PREFIX: "a b" })).toThrow(/GPUDESK_REDIS_PREFIX/);
  });
});
