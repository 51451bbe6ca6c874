// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "@/server/core/env";

const environment = (variables: Record<string, string> = {}): NodeJS.ProcessEnv => ({ NODE_ENV: "test", ...variables });

describe("single sign-on settings", () => {
  it("are off by default: local passwords on, first sign-ins create members", () => {
    const env = parseEnv(environment());
    expect(env.GPUDESK_OIDC_ISSUER).toBeUndefined();
    expect(env.GPUDESK_LDAP_URL).toBeUndefined();
    expect(env.GPUDESK_LOCAL_PASSWORDS).toBe(true);
    expect(env.GPUDESK_SSO_CREATE_USERS).toBe(true);
    expect(env.GPUDESK_SSO_ADMIN_GROUPS).toEqual([]);
    expect(env.GPUDESK_OIDC_USERNAME_CLAIM).toBe("preferred_username");
  });

  it("parse group lists and group=team pairs", () => {
    const env = parseEnv(environment({ GPUDESK_SSO_ADMIN_GROUPS: " gpu-admins; CN=GPU Admins,OU=Groups,DC=lab ", GPUDESK_SSO_TEAM_GROUPS: "vision-lab=vision; /lab/nlp = nlp;CN=NLP,OU=Groups=nlp" }));
    // Semicolons between entries: a DN's commas stay in it.
    expect(env.GPUDESK_SSO_ADMIN_GROUPS).toEqual(["gpu-admins", "CN=GPU Admins,OU=Groups,DC=lab"]);
    expect(env.GPUDESK_SSO_TEAM_GROUPS).toEqual([
      { group: "vision-lab", team: "vision" },
      { group: "/lab/nlp", team: "nlp" },
      { group: "CN=NLP,OU=Groups", team: "nlp" },
    ]);
  });

  it("name what is half set or malformed", () => {
    expect(() => parseEnv(environment({ GPUDESK_OIDC_ISSUER: "https://idp.lab.example/realms/lab" }))).toThrow(/GPUDESK_OIDC_CLIENT_ID: is required/);
    expect(() => parseEnv(environment({ GPUDESK_LDAP_URL: "ldaps://ldap.lab.example" }))).toThrow(/GPUDESK_LDAP_BASE_DN: is required/);
    expect(() => parseEnv(environment({ GPUDESK_LDAP_URL: "http://ldap.lab.example", GPUDESK_LDAP_BASE_DN: "dc=x" }))).toThrow(ConfigError);
    expect(() => parseEnv(environment({ GPUDESK_LDAP_USER_FILTER: "uid={username}" }))).toThrow(/GPUDESK_LDAP_USER_FILTER/);
    expect(() => parseEnv(environment({ GPUDESK_SSO_TEAM_GROUPS: "vision-lab" }))).toThrow(/vision-lab is not group=team/);
    expect(() => parseEnv(environment({ GPUDESK_LOCAL_PASSWORDS: "no" }))).toThrow(/GPUDESK_LOCAL_PASSWORDS/);
  });
});
