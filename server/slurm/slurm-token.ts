import { createHmac } from "node:crypto";

/**
 * A Slurm JWT (auth/jwt) signed with the cluster's jwt_hs256.key: HS256 with
 * the claims slurmctld reads, `sun` (the user), `iat` and `exp`. The whole
 * key file is the key, as Slurm reads it.
 */
export function signSlurmToken(key: Buffer, user: string, nowMs: number, lifespanSeconds = 300): string {
  const iat = Math.floor(nowMs / 1000);
  const header = base64url({ alg: "HS256", typ: "JWT" });
  const payload = base64url({ sun: user, iat, exp: iat + lifespanSeconds });
  const signature = createHmac("sha256", key).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${signature}`;
}

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}
