import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { callApi } from "@/server/cli-client/api-client";
import { type ClientEnv, saveClientConfig } from "@/server/cli-client/client-config";
import { UsageError } from "@/server/cli-client/cli-errors";

interface MeAnswer {
  user: { username: string; name?: string };
}

/**
 * `gpudesk login`: asks for the server URL and a personal token (not echoed
 * on a terminal), checks them with /api/v1/me and stores them, owner-only.
 */
export async function runLogin(env: ClientEnv, options: { url?: string }): Promise<void> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const prompt = createInterface({ input: process.stdin, output, terminal: Boolean(process.stdin.isTTY) });
  let url: string;
  let token: string;
  try {
    url = (options.url ?? (await prompt.question(`gpudesk server URL${env.GPUDESK_URL ? ` [${env.GPUDESK_URL}]` : ""}: `)) ?? "").trim() || (env.GPUDESK_URL ?? "");
    process.stderr.write("Personal token (create one on the Tokens page or with `gpudesk token create`): ");
    muted = true;
    token = (await prompt.question("")).trim();
    muted = false;
    if (process.stdin.isTTY) process.stderr.write("\n");
  } finally {
    prompt.close();
  }
  if (!/^https?:\/\//.test(url)) throw new UsageError("Give the server URL with http:// or https://");
  if (!token) throw new UsageError("No token given");
  const config = { url: url.replace(/\/+$/, ""), token };
  const me = await callApi<MeAnswer>(config, "GET", "/api/v1/me");
  const file = await saveClientConfig(env, config);
  process.stderr.write(`Logged in to ${config.url} as ${me.user.username}; saved in ${file}\n`);
}
