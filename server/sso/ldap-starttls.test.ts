// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/server/core/env";
import { checkDirectoryPassword, type LdapConfig } from "@/server/sso/ldap";
import { type Slapd, slapdInstalled, startSlapd } from "@/server/testing/slapd";

/**
 * LDAP over StartTLS against a real slapd that refuses every operation on a
 * connection that has not upgraded (`security tls=1`), with a certificate
 * from a test CA: what a lab's directory without ldaps:// expects.
 */

let slapd: Slapd;
let config: LdapConfig;

beforeAll(async () => {
  if (!slapdInstalled()) throw new Error("slapd is not installed: apt-get install -y slapd ldap-utils (as .ci/run does)");
  slapd = await startSlapd([{ uid: "tess", cn: "Tess Tls", password: "tess-directory-pw", groups: ["students"] }], { tls: true });
  config = parseEnv({ ...process.env, ...slapd.env });
});

afterAll(async () => {
  await slapd?.stop();
});

describe("StartTLS", () => {
  it("upgrades ldap:// before the service account's bind and the person's: the right password signs in, a wrong one does not", async () => {
    expect(config.GPUDESK_LDAP_URL?.startsWith("ldap://")).toBe(true);
    expect(config.GPUDESK_LDAP_STARTTLS).toBe(true);
    const result = await checkDirectoryPassword("tess", "tess-directory-pw", config);
    expect(result, JSON.stringify(result)).toMatchObject({ kind: "ok", name: "Tess Tls", unixLogin: "tess" });
    expect(await checkDirectoryPassword("tess", "not-tess-password", config)).toEqual({ kind: "wrong_password" });
  });

  it("without the upgrade the directory refuses, and so does a certificate the configured CA does not vouch for", async () => {
    const plain = await checkDirectoryPassword("tess", "tess-directory-pw", { ...config, GPUDESK_LDAP_STARTTLS: false });
    expect(plain).toMatchObject({ kind: "unavailable", reason: expect.stringMatching(/confidentiality|TLS/i) });
    const untrusted = await checkDirectoryPassword("tess", "tess-directory-pw", { ...config, GPUDESK_LDAP_CA_FILE: undefined });
    expect(untrusted).toMatchObject({ kind: "unavailable", reason: expect.stringContaining("no TLS connection") });
  });

  it("is a configuration error with ldaps://, which is TLS from the start", () => {
    expect(() => parseEnv({ ...process.env, ...slapd.env, GPUDESK_LDAP_URL: "ldaps://127.0.0.1:636" })).toThrow(/GPUDESK_LDAP_STARTTLS: goes with an ldap:\/\/ URL/);
  });
});
