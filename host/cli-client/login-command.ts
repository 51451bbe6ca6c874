import { createInterface } from "node:readline/promises";
import { Writable } from "node:stream";
import { callApi } from "@/host/cli-client/api-client";
import { type ClientEnv, saveClientConfig } from "@/host/cli-client/client-config";
import { UsageError } from "@/host/cli-client/cli-errors";

interface MeAnswer {
  user: { username: string; name?: string };
}

/**
 * `gpudesk login`: asks for the server URL and a personal token (not echoed
 * on a terminal), checks them with /api/v1/me and stores them, owner-only.
 */
export async function runLogin(env: ClientEnv, options: { url?: string }): Promise<void> {
  const answers = process.stdin.isTTY ? await askOnTerminal(env, options) : await readPiped(env, options);
  const url = answers.url.trim();
  const token = answers.token.trim();
  if (!/^https?:\/\//.test(url)) throw new UsageError("Give the server URL with http:// or https://");
  if (!token) throw new UsageError("No token given");
  const config = { url: url.replace(/\/+$/, ""), token };
  const me = await callApi<MeAnswer>(config, "GET", "/api/v1/me");
  const file = await saveClientConfig(env, config);
  process.stderr.write(`Logged in to ${config.url} as ${me.user.username}; saved in ${file}\n`);
}

interface Answers {
  url: string;
  token: string;
}

const TOKEN_PROMPT = "Personal token (create one on the Tokens page or with `gpudesk token create`): ";

async function askOnTerminal(env: ClientEnv, options: { url?: string }): Promise<Answers> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (!muted) process.stderr.write(chunk);
      callback();
    },
  });
  const prompt = createInterface({ input: process.stdin, output, terminal: true });
  try {
    const url = options.url ?? ((await prompt.question(`gpudesk server URL${env.GPUDESK_URL ? ` [${env.GPUDESK_URL}]` : ""}: `)).trim() || (env.GPUDESK_URL ?? ""));
    process.stderr.write(TOKEN_PROMPT);
    muted = true;
    const token = await prompt.question("");
    muted = false;
    process.stderr.write("\n");
    return { url, token };
  } finally {
    prompt.close();
  }
}

/** From a pipe (scripts): the URL on the first line unless --url gave it, then the token. */
async function readPiped(env: ClientEnv, options: { url?: string }): Promise<Answers> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  const url = options.url ?? (lines.shift() || env.GPUDESK_URL || "");
  return { url, token: lines.find((line) => line !== "") ?? "" };
}
