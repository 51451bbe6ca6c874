import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { parseDurationText } from "@/lib/format/duration";
import { MAX_RANGE_MS, parseSpan } from "@/lib/domain/usage-range";

/** A duration such as "30s", "5m", "2h" (a bare number is seconds) → milliseconds. */
const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const ms = parseDurationText(text);
      if (ms === null || ms > 7 * 86_400_000) {
        ctx.addIssue({ code: "custom", message: "must be a duration such as 30s, 5m or 2h (at most 7d)" });
        return z.NEVER;
      }
      return ms;
    });

const flag = (fallback: "0" | "1") =>
  z.enum(["0", "1", "false", "true"]).default(fallback).transform((value) => value === "1" || value === "true");

/** An OIDC claim or LDAP attribute name. */
const claimName = z.string().regex(/^[A-Za-z0-9_.:/-]{1,100}$/, "must be a claim or attribute name (letters, digits, _ . : / -)");

const ldapFilter = z
  .string()
  .max(1000)
  .refine((text) => text.startsWith("(") && text.endsWith(")"), "must be an LDAP filter in parentheses, e.g. (uid={username})");

/** Semicolon-separated: directory groups are often DNs, which hold commas. */
const groupList = z
  .string()
  .max(4000)
  .default("")
  .transform((text) => text.split(";").map((part) => part.trim()).filter(Boolean));

/**
 * The server's configuration, parsed once at start. Nothing else reads
 * process.env. Every variable is listed in the README.
 */
const envSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Address to listen on; agents on other hosts must reach it. */
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Where the embedded SQLite database and the build stamp live. */
  GPUDESK_DATA_DIR: z.string().min(1).default("./data"),
  /**
   * The database: a `file:` URL for SQLite (default `file:<GPUDESK_DATA_DIR>/gpudesk.db`)
   * or a `postgresql://` (or `postgres://`) URL for PostgreSQL.
   */
  DATABASE_URL: z
    .string()
    .superRefine((url, ctx) => {
      if (databaseProvider(url) !== null) return;
      // Only the scheme: the rest of a URL may hold a password.
      const scheme = /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0] ?? "no scheme";
      ctx.addIssue({
        code: "custom",
        message: `must be a file: URL for SQLite (file:./data/gpudesk.db) or a postgresql:// URL for PostgreSQL (postgresql://user:password@host:5432/gpudesk); got ${scheme}`,
      });
    })
    .optional(),
  /**
   * Several instances: a redis:// or rediss:// URL. With it, socket.io rooms
   * are shared through the Redis adapter, live hosts are relayed between
   * instances and background jobs run on one elected instance (server/cluster/).
   */
  REDIS_URL: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === "") return undefined;
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        url = new URL("invalid:");
      }
      if ((url.protocol !== "redis:" && url.protocol !== "rediss:") || url.hostname === "") {
        ctx.addIssue({ code: "custom", message: "must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379" });
        return z.NEVER;
      }
      return text;
    }),
  /** Keys and channels in Redis start with this: several gpudesk deployments (or tests) can share one Redis. */
  GPUDESK_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "must be 1 to 64 letters, digits or _ . : -")
    .default("gpudesk"),
  /** How long the lock of the instance that runs the background jobs lasts without renewal (a dead leader hands over after this). */
  GPUDESK_LEADER_TTL_MS: z.coerce.number().int().min(1000).max(600_000).default(10_000),
  /** The agent inside the server: auto (nvidia-smi if found, else simulated), nvidia-smi, simulated or off. */
  GPUDESK_LOCAL_AGENT: z.enum(["auto", "nvidia-smi", "simulated", "off"]).default("auto"),
  /** ask: the first admin is asked whether this server is a demo or the lab; keep: a demo server, never asked (server/demo/demo-choice.ts). */
  GPUDESK_DEMO: z.enum(["ask", "keep"]).default("ask"),
  GPUDESK_NVIDIA_SMI: z.string().min(1).optional(),
  GPUDESK_SAMPLE_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /** Seed of the simulated fleet: the same seed gives the same fleet. */
  GPUDESK_SIM_SEED: z.coerce.number().int().default(42),
  /**
   * The simulated fleet as it was at this instant, going on at real speed from
   * there (readings carry the real time); default: the fleet as it is now. Tests
   * pin it so that the simulated jobs they look at are running.
   */
  GPUDESK_SIM_TIME: z.iso.datetime({ offset: true }).optional(),
  /** Number of simulated GPUs; default: the three-host demo fleet (14 GPUs). */
  GPUDESK_SIM_GPUS: z.coerce.number().int().min(1).max(10_000).optional(),
  /** A host is offline after this many milliseconds without a sample (at least three intervals). */
  GPUDESK_OFFLINE_AFTER_MS: z.coerce.number().int().min(1000).default(5000),
  /** The address people use to reach gpudesk, e.g. https://gpudesk.lab.example; default: whatever host a request names. */
  GPUDESK_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Signs session cookies; generated into the data directory when unset. Set it when several instances share a database. */
  GPUDESK_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** How long a sign-in lasts, in hours. */
  GPUDESK_SESSION_HOURS: z.coerce.number().int().min(1).max(24 * 90).default(24 * 7),
  /** Trust X-Forwarded-For for client addresses (only behind a reverse proxy you run). */
  GPUDESK_TRUST_PROXY: z.enum(["0", "1", "false", "true"]).default("0").transform((value) => value === "1" || value === "true"),
  /**
   * Private addresses that personal webhooks may reach, as a comma-separated
   * list of addresses or CIDR ranges (e.g. `10.20.0.0/16,127.0.0.1`). By default
   * none: a member's webhook may only call public addresses. Fleet-wide
   * webhooks (set by admins) may call any address.
   */
  GPUDESK_WEBHOOK_PRIVATE_TARGETS: z
    .string()
    .default("")
    .transform((text, ctx) => {
      const ranges: { address: string; prefix: number }[] = [];
      for (const item of text.split(",").map((part) => part.trim()).filter(Boolean)) {
        const [address, prefixText] = item.split("/");
        const version = isIP(address);
        const max = version === 6 ? 128 : 32;
        const prefix = prefixText === undefined ? max : Number(prefixText);
        if (version === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
          ctx.addIssue({ code: "custom", message: `${item} is not an address or CIDR range (e.g. 10.20.0.0/16, fd00::/8)` });
          return z.NEVER;
        }
        ranges.push({ address, prefix });
      }
      return ranges;
    }),
  /**
   * Mail to people (Settings → Notifications): an smtp:// (STARTTLS when the
   * server offers it) or smtps:// URL with the account in it, e.g.
   * smtp://gpudesk:secret@mail.lab.example:587. Unset: no mail is sent.
   */
  GPUDESK_SMTP_URL: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === "") return undefined;
      let url: URL | null = null;
      try {
        url = new URL(text);
      } catch {
        url = null;
      }
      if (!url || (url.protocol !== "smtp:" && url.protocol !== "smtps:") || url.hostname === "") {
        ctx.addIssue({ code: "custom", message: "must be an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.org:587" });
        return z.NEVER;
      }
      return text;
    }),
  /** The sender of gpudesk's mail. */
  GPUDESK_SMTP_FROM: z.string().min(3).max(200).default("gpudesk <gpudesk@localhost>"),
  /** Sign-in attempts allowed per client address per minute (failed ones per username are slowed down separately). */
  /**
   * Sign-ins per client address per minute, on each sign-in path. 60: a lab of 150 behind one
   * address (a NAT, a proxy that does not forward) arriving within ten minutes at 9 a.m. is about
   * 15 a minute, twice with a typo, so four times that with room to spare.
   */
  GPUDESK_SIGNIN_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
  /**
   * socket.io's per-message compression (permessage-deflate) on every WebSocket, agents' and
   * browsers' alike. Off: it compresses each message once per socket, so its CPU grows with
   * every viewer (docs/benchmark.md, "Compression"); kept as a switch for links where bytes
   * cost more than CPU.
   */
  GPUDESK_SOCKET_DEFLATE: z.enum(["0", "1", "false", "true"]).default("0").transform((value) => value === "1" || value === "true"),
  /** Largest agent message accepted, in bytes. */
  GPUDESK_MAX_AGENT_MESSAGE_BYTES: z.coerce.number().int().min(64_000).default(4_000_000),
  /**
   * Usage history: days of per-minute rollups kept; older minutes are pruned in the background,
   * once their hour is complete in the hourly rollups (server/history/retention.ts).
   */
  GPUDESK_HISTORY_MINUTE_DAYS: z.coerce.number().int("must be a whole number of days").min(1, "must be at least 1 (day)").max(3650).default(30),
  /**
   * Usage history: days of hourly rollups kept. A year by default: a yearly usage report and a
   * year-over-year comparison read hours, and a year of hours at 160 GPUs stays small (docs/benchmark.md).
   */
  GPUDESK_HISTORY_HOUR_DAYS: z.coerce.number().int("must be a whole number of days").min(1, "must be at least 1 (day)").max(36_500).default(365),
  /** Seconds between two writes of the minute rollups (a crash loses at most this much history). */
  GPUDESK_ROLLUP_FLUSH_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
  /** `1`: /metrics answers without sign-in (for a Prometheus on a trusted network). */
  GPUDESK_METRICS_PUBLIC: z.enum(["0", "1", "false", "true"]).default("0").transform((value) => value === "1" || value === "true"),
  /** Alerts (server/alerts): how long each condition must hold before its alert opens. */
  GPUDESK_ALERT_CONFLICT_AFTER: duration("60s"),
  GPUDESK_ALERT_UNBOOKED_AFTER: duration("5m"),
  GPUDESK_ALERT_IDLE_AFTER: duration("30m"),
  GPUDESK_ALERT_MEMORY_AFTER: duration("1m"),
  /** Memory pressure: used memory above this share of the GPU's, in percent. */
  GPUDESK_ALERT_MEMORY_ABOVE_PCT: z.coerce.number().min(1).max(100).default(95),
  /** GPU health (uncorrected ECC errors, a GPU gone from its host's inventory). */
  GPUDESK_ALERT_HEALTH_AFTER: duration("10s"),
  /** A host whose agent has been offline this long. */
  GPUDESK_ALERT_HOST_OFFLINE_AFTER: duration("5m"),
  /** How long a condition must stay away before its alert closes (no flapping). */
  GPUDESK_ALERT_CLEAR_AFTER: duration("1m"),
  /** Synthetic usage history (e.g. `7d`) filled at start for the simulated fleet; `npm start -- --demo-history 7d` sets it. */
  GPUDESK_DEMO_HISTORY: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text === "" || text === "0") return undefined;
      const ms = parseSpan(text);
      if (ms === null || ms > MAX_RANGE_MS) {
        ctx.addIssue({ code: "custom", message: "must be a span such as 7d, 24h or 2w (at most 400 days)" });
        return z.NEVER;
      }
      return ms;
    }),
  /**
   * Single sign-on (server/sso/, docs/operations.md "Single sign-on"). OpenID Connect: the
   * issuer (its /.well-known/openid-configuration is read), the client registered there and
   * which claims carry the username, the Unix login and the groups.
   */
  GPUDESK_OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  GPUDESK_OIDC_CLIENT_ID: z.string().min(1).max(200).optional(),
  GPUDESK_OIDC_CLIENT_SECRET: z.string().min(1).max(500).optional(),
  /** What the button says after "Sign in with" (e.g. Keycloak, Microsoft). */
  GPUDESK_OIDC_NAME: z.string().trim().min(1).max(40).default("SSO"),
  GPUDESK_OIDC_SCOPES: z.string().max(500).default("openid profile email"),
  GPUDESK_OIDC_USERNAME_CLAIM: claimName.default("preferred_username"),
  /** Unset: a new person's Unix login is their username (as `gpudesk user add` does). */
  GPUDESK_OIDC_UNIX_LOGIN_CLAIM: claimName.optional(),
  GPUDESK_OIDC_GROUPS_CLAIM: claimName.default("groups"),
  /** 1: signing out of gpudesk signs out of the provider too (RP-initiated logout), where the provider offers it. */
  GPUDESK_OIDC_PROVIDER_LOGOUT: flag("1"),
  /**
   * Domains (`,`, `;` or space separated) whose names may sign in: a username
   * claim with an `@domain` of another domain is refused, and with Google as
   * the issuer the Workspace domain (`hd`) must be one of them.
   */
  GPUDESK_OIDC_ALLOWED_DOMAINS: z
    .string()
    .max(4000)
    .default("")
    .transform((text) => text.split(/[\s,;]+/).map((part) => part.trim().toLowerCase().replace(/^@/, "")).filter(Boolean))
    .pipe(z.array(z.string().regex(/^[a-z0-9.-]+\.[a-z0-9-]+$/, "must be domains such as lab.example, separated by commas"))),
  /** LDAP bind: ldap:// or ldaps:// URL of the directory, the service account that searches it, where people are. */
  GPUDESK_LDAP_URL: z.url({ protocol: /^ldaps?$/ }).optional(),
  GPUDESK_LDAP_BIND_DN: z.string().max(500).optional(),
  GPUDESK_LDAP_BIND_PASSWORD: z.string().max(500).optional(),
  GPUDESK_LDAP_BASE_DN: z.string().min(1).max(500).optional(),
  /** `{username}` is replaced by the name typed in, escaped; Active Directory: (sAMAccountName={username}). */
  GPUDESK_LDAP_USER_FILTER: ldapFilter.default("(uid={username})"),
  GPUDESK_LDAP_UNIX_LOGIN_ATTRIBUTE: claimName.default("uid"),
  GPUDESK_LDAP_NAME_ATTRIBUTE: claimName.default("cn"),
  /** Groups by search below this DN (OpenLDAP groupOfNames / posixGroup); unset: the person's memberOf attribute (Active Directory). */
  GPUDESK_LDAP_GROUP_BASE_DN: z.string().min(1).max(500).optional(),
  /** `{dn}`: the person's DN, `{username}`: the name typed in. */
  GPUDESK_LDAP_GROUP_FILTER: ldapFilter.default("(|(member={dn})(memberUid={username}))"),
  /** A PEM file of the CA that signed the directory's certificate (ldaps://), when it is not a public one. */
  GPUDESK_LDAP_CA_FILE: z.string().min(1).max(1000).optional(),
  /** 1: upgrade an ldap:// connection with StartTLS before anything is sent (binds included); refused if the directory cannot. */
  GPUDESK_LDAP_STARTTLS: flag("0"),
  /** Groups (OIDC claim values or LDAP group names or DNs, `;`-separated) whose members are admins; unset: roles are not taken from the directory. */
  GPUDESK_SSO_ADMIN_GROUPS: groupList,
  /** Groups to teams: `group=team;group2=team2` (a group may be a DN: the last `=` names the team). */
  GPUDESK_SSO_TEAM_GROUPS: z
    .string()
    .max(4000)
    .default("")
    .transform((text, ctx) => {
      const pairs: { group: string; team: string }[] = [];
      for (const item of text.split(";").map((part) => part.trim()).filter(Boolean)) {
        const at = item.lastIndexOf("=");
        const group = item.slice(0, at).trim();
        const team = item.slice(at + 1).trim();
        if (at < 0 || !group || !team) {
          ctx.addIssue({ code: "custom", message: `${item} is not group=team (e.g. vision-lab=vision; pairs separated by ;)` });
          return z.NEVER;
        }
        pairs.push({ group, team });
      }
      return pairs;
    }),
  /** 1: a person's first single sign-on creates their account (a member); 0: only people an admin created may sign in. */
  GPUDESK_SSO_CREATE_USERS: flag("1"),
  /** 0: gpudesk's own passwords are refused (the password form is gone unless LDAP is set). */
  GPUDESK_LOCAL_PASSWORDS: flag("1"),
  /**
   * Slurm underneath (docs/operations.md "Slurm"): slurmrestd's URL. With it, a booking on a
   * Slurm node is a Slurm reservation and Slurm's jobs are on the calendar.
   */
  GPUDESK_SLURM_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The cluster's jwt_hs256.key (a file): gpudesk signs short-lived tokens for GPUDESK_SLURM_USER with it. */
  GPUDESK_SLURM_JWT_KEY: z.string().min(1).max(1000).optional(),
  /** Or a token from `scontrol token` (it expires; the key does not). */
  GPUDESK_SLURM_TOKEN: z.string().min(1).max(10_000).optional(),
  /** The Slurm user gpudesk acts as: an Operator (`sacctmgr modify user gpudesk set AdminLevel=Operator`). */
  GPUDESK_SLURM_USER: z.string().regex(/^[a-z_][a-z0-9_.-]{0,31}$/i, "must be a Unix user name").default("gpudesk"),
});

export type DatabaseProvider = "sqlite" | "postgresql";

/** Which database a DATABASE_URL names, by its scheme; null for one gpudesk does not support. */
export function databaseProvider(url: string): DatabaseProvider | null {
  if (url.startsWith("file:")) return "sqlite";
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgresql";
  return null;
}

/** DATABASE_URL fit for a log line: a PostgreSQL URL without its password. */
export function describeDatabase(url: string): string {
  if (databaseProvider(url) !== "postgresql") return url;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "PostgreSQL (unparsable URL)";
  }
}

export type Env = z.infer<typeof envSchema> & { DATABASE_URL: string; dataDir: string };

export class ConfigError extends Error {}

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const missing = [...ssoMissing(result.data), ...retentionMistakes(result.data), ...slurmMissing(result.data)];
  if (missing.length > 0) throw new ConfigError(`Invalid configuration:\n${missing.map((line) => `  ${line}`).join("\n")}`);
  const dataDir = path.resolve(result.data.GPUDESK_DATA_DIR);
  return {
    ...result.data,
    dataDir,
    DATABASE_URL: result.data.DATABASE_URL ?? `file:${path.join(dataDir, "gpudesk.db")}`,
  };
}

/** The variables single sign-on needs together: one set without the others is a mistake, named at start. */
function ssoMissing(data: z.infer<typeof envSchema>): string[] {
  const lines: string[] = [];
  if (data.GPUDESK_OIDC_ISSUER && !data.GPUDESK_OIDC_CLIENT_ID) lines.push("GPUDESK_OIDC_CLIENT_ID: is required with GPUDESK_OIDC_ISSUER");
  if (!data.GPUDESK_OIDC_ISSUER && data.GPUDESK_OIDC_CLIENT_ID) lines.push("GPUDESK_OIDC_ISSUER: is required with GPUDESK_OIDC_CLIENT_ID");
  if (data.GPUDESK_OIDC_ISSUER && isGoogleIssuer(data.GPUDESK_OIDC_ISSUER) && data.GPUDESK_OIDC_ALLOWED_DOMAINS.length === 0) {
    lines.push("GPUDESK_OIDC_ALLOWED_DOMAINS: is required with Google as GPUDESK_OIDC_ISSUER (any Google account could sign in otherwise)");
  }
  if (data.GPUDESK_LDAP_STARTTLS && data.GPUDESK_LDAP_URL?.startsWith("ldaps:")) {
    lines.push("GPUDESK_LDAP_STARTTLS: goes with an ldap:// URL (ldaps:// is TLS from the start)");
  }
  if (data.GPUDESK_LDAP_URL && !data.GPUDESK_LDAP_BASE_DN) lines.push("GPUDESK_LDAP_BASE_DN: is required with GPUDESK_LDAP_URL");
  if (data.GPUDESK_LDAP_BIND_DN && data.GPUDESK_LDAP_BIND_PASSWORD === undefined) {
    lines.push("GPUDESK_LDAP_BIND_PASSWORD: is required with GPUDESK_LDAP_BIND_DN");
  }
  return lines;
}

/** Slurm needs its address and one way to sign in, and nothing of it without the address. */
function slurmMissing(data: z.infer<typeof envSchema>): string[] {
  const credentials = data.GPUDESK_SLURM_JWT_KEY !== undefined || data.GPUDESK_SLURM_TOKEN !== undefined;
  if (data.GPUDESK_SLURM_URL && !credentials) return ["GPUDESK_SLURM_JWT_KEY: is required with GPUDESK_SLURM_URL (or GPUDESK_SLURM_TOKEN)"];
  if (!data.GPUDESK_SLURM_URL && credentials) return ["GPUDESK_SLURM_URL: is required with GPUDESK_SLURM_JWT_KEY or GPUDESK_SLURM_TOKEN"];
  if (data.GPUDESK_SLURM_JWT_KEY && data.GPUDESK_SLURM_TOKEN) return ["GPUDESK_SLURM_TOKEN: set either it or GPUDESK_SLURM_JWT_KEY, not both"];
  return [];
}

/** Google's issuer: any Google account signs in there; the Workspace domain is in the `hd` claim. */
export function isGoogleIssuer(issuer: string): boolean {
  return /^https:\/\/accounts\.google\.com\/?$/.test(issuer);
}

/** Hours are what is left of minutes once they are pruned: dropping them first would leave older ranges empty. */
function retentionMistakes(data: z.infer<typeof envSchema>): string[] {
  if (data.GPUDESK_HISTORY_HOUR_DAYS >= data.GPUDESK_HISTORY_MINUTE_DAYS) return [];
  return [
    `GPUDESK_HISTORY_HOUR_DAYS: ${data.GPUDESK_HISTORY_HOUR_DAYS} days of hourly history is shorter than the ${data.GPUDESK_HISTORY_MINUTE_DAYS} days of minutes (GPUDESK_HISTORY_MINUTE_DAYS); it must be at least as long`,
  ];
}

let cached: Env | undefined;

/** The configuration of this process, parsed on first use. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
