// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/server/core/env";
import { checkDirectoryPassword, escapeFilterValue, type LdapConfig } from "@/server/sso/ldap";
import { type Slapd, slapdInstalled, startSlapd } from "@/server/testing/slapd";

/** Against a real slapd started here (Debian's package; .ci/run installs it), on a free port of its own. */
let slapd: Slapd;
let config: LdapConfig;

beforeAll(async () => {
  if (!slapdInstalled()) throw new Error("slapd is not installed: apt-get install -y slapd ldap-utils (as .ci/run does)");
  slapd = await startSlapd([
    { uid: "ada", cn: "Ada Lovelace", password: "ada-directory-pw", groups: ["gpu-admins", "vision-lab"] },
    { uid: "ckrause", cn: "Carol Krause", password: "carol-directory-pw", groups: ["students"], mail: "carol@lab.example" },
  ]);
  config = parseEnv({ ...process.env, ...slapd.env });
});

afterAll(async () => {
  await slapd?.stop();
});

describe("checkDirectoryPassword against slapd", () => {
  it("the right password: the entry, its name, uid as the Unix login and its groups", async () => {
    const result = await checkDirectoryPassword("ada", "ada-directory-pw", config);
    expect(result).toMatchObject({ kind: "ok", dn: "uid=ada,ou=people,dc=lab,dc=example", name: "Ada Lovelace", unixLogin: "ada" });
    if (result.kind !== "ok") throw new Error("unreachable");
    expect(result.groups.sort()).toEqual(["cn=gpu-admins,ou=groups,dc=lab,dc=example", "cn=vision-lab,ou=groups,dc=lab,dc=example"]);
  });

  it("a sign-in name other than the uid: the Unix login is still the uid", async () => {
    expect(await checkDirectoryPassword("carol", "carol-directory-pw", config)).toMatchObject({ kind: "ok", unixLogin: "ckrause" });
  });

  it("a wrong password, an empty one (an anonymous bind would succeed) and a NUL are refused", async () => {
    expect(await checkDirectoryPassword("ada", "not-her-password", config)).toEqual({ kind: "wrong_password" });
    expect(await checkDirectoryPassword("ada", "", config)).toEqual({ kind: "wrong_password" });
    expect(await checkDirectoryPassword("ada", "ada-directory-pw\0", config)).toEqual({ kind: "wrong_password" });
  });

  it("someone the directory does not know is unknown; filter characters in the name do not widen the search", async () => {
    expect(await checkDirectoryPassword("nobody", "whatever-pw", config)).toEqual({ kind: "unknown" });
    expect(await checkDirectoryPassword("*", "ada-directory-pw", config)).toEqual({ kind: "unknown" });
    expect(await checkDirectoryPassword("ad*", "ada-directory-pw", config)).toEqual({ kind: "unknown" });
    expect(escapeFilterValue("a*(b)\\")).toBe("a\\2a\\28b\\29\\5c");
  });

  it("a wrong service password or a directory that is down: unavailable, nothing decided", async () => {
    expect((await checkDirectoryPassword("ada", "ada-directory-pw", { ...config, GPUDESK_LDAP_BIND_PASSWORD: "wrong" })).kind).toBe("unavailable");
    expect((await checkDirectoryPassword("ada", "ada-directory-pw", { ...config, GPUDESK_LDAP_URL: "ldap://127.0.0.1:1" })).kind).toBe("unavailable");
  });

  it("without a group base the memberOf attribute gives the groups (Active Directory); slapd here has none", async () => {
    const result = await checkDirectoryPassword("ada", "ada-directory-pw", { ...config, GPUDESK_LDAP_GROUP_BASE_DN: undefined });
    expect(result).toMatchObject({ kind: "ok", groups: [] });
  });
});
