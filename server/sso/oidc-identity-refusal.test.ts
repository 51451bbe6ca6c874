// Single sign-on plugged into sign-in, as the server does at start (server/main/sign-in.ts).
import "@/server/testing/plug-sign-in";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/server/core/env";
import { oidcIdentityRefusal } from "@/server/sso/oidc";

const GOOGLE = { GPUDESK_OIDC_ISSUER: "https://accounts.google.com", GPUDESK_OIDC_USERNAME_CLAIM: "email", GPUDESK_OIDC_ALLOWED_DOMAINS: ["lab.example"] };
const KEYCLOAK = { GPUDESK_OIDC_ISSUER: "https://sso.lab.example/realms/lab", GPUDESK_OIDC_USERNAME_CLAIM: "preferred_username", GPUDESK_OIDC_ALLOWED_DOMAINS: [] };

describe("which names the provider's word is not enough for", () => {
  it("Google: only accounts of an allowed Workspace domain (hd), with a verified address", () => {
    expect(oidcIdentityRefusal({ email: "adm@gmail.com", email_verified: true }, "adm@gmail.com", GOOGLE)?.reason).toBe("domain_not_allowed");
    expect(oidcIdentityRefusal({ email: "adm@lab.example", email_verified: true }, "adm@lab.example", GOOGLE)?.reason).toBe("domain_not_allowed");
    expect(oidcIdentityRefusal({ email: "adm@other.example", hd: "other.example", email_verified: true }, "adm@other.example", GOOGLE)?.reason).toBe("domain_not_allowed");
    expect(oidcIdentityRefusal({ email: "adm@lab.example", hd: "lab.example", email_verified: false }, "adm@lab.example", GOOGLE)?.reason).toBe("email_not_verified");
    expect(oidcIdentityRefusal({ email: "ada@lab.example", hd: "lab.example", email_verified: true }, "ada@lab.example", GOOGLE)).toBeNull();
  });

  it("any issuer: a name with a domain needs that domain allowed; a plain name is the provider's to vouch for", () => {
    expect(oidcIdentityRefusal({}, "adm@evil.example", KEYCLOAK)?.reason).toBe("domain_not_allowed");
    expect(oidcIdentityRefusal({}, "adm@lab.example", { ...KEYCLOAK, GPUDESK_OIDC_ALLOWED_DOMAINS: ["lab.example"] })).toBeNull();
    expect(oidcIdentityRefusal({}, "adm", KEYCLOAK)).toBeNull();
  });

  it("Google as the issuer without allowed domains is a configuration error at start", () => {
    expect(() => parseEnv({ NODE_ENV: "test", GPUDESK_OIDC_ISSUER: "https://accounts.google.com", GPUDESK_OIDC_CLIENT_ID: "x" })).toThrow(/GPUDESK_OIDC_ALLOWED_DOMAINS: is required with Google/);
    expect(parseEnv({ NODE_ENV: "test", GPUDESK_OIDC_ALLOWED_DOMAINS: "Lab.Example, @cs.lab.example" }).GPUDESK_OIDC_ALLOWED_DOMAINS).toEqual(["lab.example", "cs.lab.example"]);
  });
});
