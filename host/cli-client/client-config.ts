import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import * as z from "zod";
import { UsageError } from "@/host/cli-client/cli-errors";

/**
 * Where the CLI client finds its server and token: GPUDESK_URL and
 * GPUDESK_TOKEN first, then what `gpudesk login` stored in the user's config
 * directory. This is the client side of gpudesk, run by people on GPU hosts
 * without the server's configuration, so it reads its own few variables here
 * rather than through server/core/env.ts (which requires the server's).
 */

export interface ClientConfig {
  url: string;
  token: string;
}

const MISSING = "Not logged in: run `gpudesk login`, or set GPUDESK_URL and GPUDESK_TOKEN";

const urlSchema = z.url({ protocol: /^https?$/, error: "GPUDESK_URL must be an http(s) URL, e.g. http://gpudesk.lab:3000" }).max(2048);
const tokenSchema = z.string().trim().min(1).max(512);

const storedSchema = z.object({ url: urlSchema, token: tokenSchema });

const clientEnvSchema = z.object({
  GPUDESK_URL: urlSchema.optional(),
  GPUDESK_TOKEN: tokenSchema.optional(),
  XDG_CONFIG_HOME: z.string().max(4096).optional(),
  HOME: z.string().max(4096).optional(),
});

export type ClientEnv = z.infer<typeof clientEnvSchema>;

export function parseClientEnv(env: Record<string, string | undefined>): ClientEnv {
  const parsed = clientEnvSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, value]) => value !== "")));
  if (!parsed.success) throw new UsageError(parsed.error.issues.map((issue) => issue.message).join("; "));
  return parsed.data;
}

/** `$XDG_CONFIG_HOME/gpudesk/config.json`, else `~/.config/gpudesk/config.json`. */
export function configPath(env: ClientEnv): string {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(env.HOME ?? os.homedir(), ".config");
  return path.join(base, "gpudesk", "config.json");
}

async function readStored(file: string): Promise<Partial<ClientConfig>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return {};
  }
  const parsed = storedSchema.partial().safeParse(JSON.parse(text));
  if (!parsed.success) throw new UsageError(`${file} is not a gpudesk config: run \`gpudesk login\` again`);
  return parsed.data;
}

/** The URL and token to use: each from the environment when set, else from the stored config. */
export async function loadClientConfig(env: ClientEnv): Promise<ClientConfig> {
  const stored = env.GPUDESK_URL && env.GPUDESK_TOKEN ? {} : await readStored(configPath(env));
  const url = env.GPUDESK_URL ?? stored.url;
  const token = env.GPUDESK_TOKEN ?? stored.token;
  if (!url || !token) throw new UsageError(MISSING);
  return { url: url.replace(/\/+$/, ""), token };
}

/** Writes the config readable by its owner only: the token is as good as a password. */
export async function saveClientConfig(env: ClientEnv, config: ClientConfig): Promise<string> {
  const file = configPath(env);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(storedSchema.parse(config), null, 2)}\n`, { mode: 0o600 });
  // writeFile keeps the mode of a file that already exists.
  await chmod(file, 0o600);
  return file;
}
