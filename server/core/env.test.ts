import { describe, expect, it } from "vitest";
import { ConfigError, databaseProvider, describeDatabase, parseEnv } from "@/server/core/env";

/** An environment with only these variables (NODE_ENV is required by the type, not by the parser). */
const environment = (variables: Record<string, string> = {}): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...variables });

describe("DATABASE_URL", () => {
  it("defaults to a SQLite file in the data directory", () => {
    const env = parseEnv(environment({ GPUDESK_DATA_DIR: "/var/lib/gpudesk" }));
    expect(env.DATABASE_URL).toBe("file:/var/lib/gpudesk/gpudesk.db");
    expect(databaseProvider(env.DATABASE_URL)).toBe("sqlite");
  });

  it("takes PostgreSQL URLs of either scheme", () => {
    for (const url of ["postgresql://gpudesk:secret@db:5432/gpudesk", "postgres://gpudesk@db/gpudesk?sslmode=require"]) {
      expect(databaseProvider(parseEnv(environment({ DATABASE_URL: url })).DATABASE_URL)).toBe("postgresql");
    }
  });

  it("refuses any other database, naming the scheme but never the password", () => {
    const parse = () => parseEnv(environment({ DATABASE_URL: "mysql://gpudesk:hunter2@db/gpudesk" }));
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(/DATABASE_URL: must be a file: URL for SQLite .* or a postgresql:\/\/ URL for PostgreSQL .*; got mysql:/);
    expect(parse).not.toThrow(/hunter2/);
  });

  it("is logged without its password", () => {
    expect(describeDatabase("postgresql://gpudesk:hunter2@db:5432/gpudesk")).toBe("postgresql://gpudesk:***@db:5432/gpudesk");
    expect(describeDatabase("postgres://db/gpudesk")).toBe("postgres://db/gpudesk");
    expect(describeDatabase("file:./data/gpudesk.db")).toBe("file:./data/gpudesk.db");
  });
});

describe("GPUDESK_WEBHOOK_PRIVATE_TARGETS", () => {
  it("is empty by default: personal webhooks reach public addresses only", () => {
    expect(parseEnv(environment()).GPUDESK_WEBHOOK_PRIVATE_TARGETS).toEqual([]);
  });

  it("takes addresses and CIDR ranges of both families", () => {
    expect(parseEnv(environment({ GPUDESK_WEBHOOK_PRIVATE_TARGETS: " 10.20.0.0/16, 192.168.5.10 ,fd00::/8" })).GPUDESK_WEBHOOK_PRIVATE_TARGETS).toEqual([
      { address: "10.20.0.0", prefix: 16 },
      { address: "192.168.5.10", prefix: 32 },
      { address: "fd00::", prefix: 8 },
    ]);
  });

  it("names the entry that is not an address or a range", () => {
    for (const bad of ["10.0.0.0/33", "intranet.lab", "10.0.0.0/x", "fd00::/129"]) {
      expect(() => parseEnv(environment({ GPUDESK_WEBHOOK_PRIVATE_TARGETS: bad }))).toThrow(ConfigError);
      expect(() => parseEnv(environment({ GPUDESK_WEBHOOK_PRIVATE_TARGETS: bad }))).toThrow(new RegExp(`GPUDESK_WEBHOOK_PRIVATE_TARGETS: ${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} is not`));
    }
  });
});

describe("GPUDESK_SOCKET_DEFLATE", () => {
  it("is off by default: per-socket compression costs CPU for every viewer", () => {
    expect(parseEnv(environment()).GPUDESK_SOCKET_DEFLATE).toBe(false);
    expect(parseEnv(environment({ GPUDESK_SOCKET_DEFLATE: "1" })).GPUDESK_SOCKET_DEFLATE).toBe(true);
    expect(() => parseEnv(environment({ GPUDESK_SOCKET_DEFLATE: "yes" }))).toThrow(/GPUDESK_SOCKET_DEFLATE/);
  });
});

describe("usage history retention", () => {
  it("keeps 30 days of minutes and a year of hours by default", () => {
    const parsed = parseEnv(environment());
    expect(parsed.GPUDESK_HISTORY_MINUTE_DAYS).toBe(30);
    expect(parsed.GPUDESK_HISTORY_HOUR_DAYS).toBe(365);
    expect(parseEnv(environment({ GPUDESK_HISTORY_MINUTE_DAYS: "7", GPUDESK_HISTORY_HOUR_DAYS: "90" }))).toMatchObject({ GPUDESK_HISTORY_MINUTE_DAYS: 7, GPUDESK_HISTORY_HOUR_DAYS: 90 });
  });

  it("names the variable that is wrong", () => {
    expect(() => parseEnv(environment({ GPUDESK_HISTORY_MINUTE_DAYS: "0" }))).toThrow(/GPUDESK_HISTORY_MINUTE_DAYS: must be at least 1/);
    expect(() => parseEnv(environment({ GPUDESK_HISTORY_MINUTE_DAYS: "2.5" }))).toThrow(/GPUDESK_HISTORY_MINUTE_DAYS: must be a whole number of days/);
    // Hours outlive minutes: otherwise a range older than the hours but younger than the minutes would read an empty table.
    expect(() => parseEnv(environment({ GPUDESK_HISTORY_MINUTE_DAYS: "30", GPUDESK_HISTORY_HOUR_DAYS: "7" }))).toThrow(
      /GPUDESK_HISTORY_HOUR_DAYS: 7 days of hourly history is shorter than the 30 days of minutes/,
    );
  });
});

describe("Slurm underneath", () => {
  it("is off without GPUDESK_SLURM_URL, and acts as gpudesk by default", () => {
    const env = parseEnv(environment());
    expect(env.GPUDESK_SLURM_URL).toBeUndefined();
    expect(parseEnv(environment({ GPUDESK_SLURM_URL: "http://slurm-ctl:6820", GPUDESK_SLURM_JWT_KEY: "/etc/slurm/jwt_hs256.key" })).GPUDESK_SLURM_USER).toBe("gpudesk");
  });

  it("names what is missing or too much: the address, one way to sign in, not both", () => {
    expect(() => parseEnv(environment({ GPUDESK_SLURM_URL: "http://slurm-ctl:6820" }))).toThrow(/GPUDESK_SLURM_JWT_KEY: is required with GPUDESK_SLURM_URL/);
    expect(() => parseEnv(environment({ GPUDESK_SLURM_TOKEN: "t" }))).toThrow(/GPUDESK_SLURM_URL: is required/);
    expect(() => parseEnv(environment({ GPUDESK_SLURM_URL: "http://s:6820", GPUDESK_SLURM_TOKEN: "t", GPUDESK_SLURM_JWT_KEY: "/k" }))).toThrow(/either it or GPUDESK_SLURM_JWT_KEY/);
    expect(() => parseEnv(environment({ GPUDESK_SLURM_URL: "slurm-ctl:6820", GPUDESK_SLURM_TOKEN: "t" }))).toThrow(/GPUDESK_SLURM_URL/);
  });
});
