import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { signSlurmToken } from "@/server/slurm/slurm-token";
import { type TestSlurm, useTestSlurm } from "@/server/testing/slurm-cluster";

const FIXTURES = fileURLToPath(new URL("../../server/slurm/fixtures/", import.meta.url));

/**
 * What a script that records slurmrestd's answers from the test Slurm needs:
 * the cluster, a signed GET of the REST API, a shell as a Slurm user, and
 * `save` to write an answer into server/slurm/fixtures/.
 */
export async function recordingSession(): Promise<{
  slurm: TestSlurm;
  get: (what: string) => Promise<unknown>;
  sh: (user: string, command: string) => Promise<string>;
  save: (file: string, what: string) => Promise<void>;
}> {
  const slurm = await useTestSlurm();
  const key = readFileSync(slurm.jwtKeyFile);
  const get = async (what: string): Promise<unknown> => {
    const response = await fetch(`${slurm.url}/slurm/v0.0.45/${what}`, { headers: { "X-SLURM-USER-NAME": slurm.user, "X-SLURM-USER-TOKEN": signSlurmToken(key, slurm.user, Date.now()) } });
    return response.json();
  };
  const sh = (user: string, command: string) => slurm.as(user, command);
  const save = async (file: string, what: string) => writeFileSync(path.join(FIXTURES, file), JSON.stringify(await get(what), null, 2) + "\n");
  return { slurm, get, sh, save };
}
