import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/**
 * A real OpenID Connect provider for tests: panva's `oidc-provider` (the
 * certified implementation Keycloak-like providers are tested against) on
 * 127.0.0.1:port, with one confidential client for gpudesk and the lab's
 * people. Its development sign-in pages (devInteractions) take any listed
 * login; a browser or signInAtProvider() below fills them.
 */

export interface OidcPerson {
  /** The login typed at the provider; also the subject (`sub`). */
  login: string;
  preferred_username: string;
  name: string;
  groups: string[];
  /** A custom claim for the Unix login (GPUDESK_OIDC_UNIX_LOGIN_CLAIM=uid). */
  uid?: string;
  /** Default `<login>@lab.example`, verified. */
  email?: string;
  email_verified?: boolean;
}

export const TEST_CLIENT_ID = "gpudesk";
export const TEST_CLIENT_SECRET = "gpudesk-client-secret-for-tests";

export interface TestOidcProvider {
  issuer: string;
  /** The gpudesk environment that points at this provider. */
  env: Record<string, string>;
  stop: () => Promise<void>;
}

/**
 * Starts the provider; `redirectUris` are gpudesk's callbacks
 * (`<origin>/api/auth/callback/oidc`). Port 0 (the default) listens on a
 * free port first and names the issuer after it, so parallel runs never collide.
 */
export async function startOidcProvider(redirectUris: string[], people: OidcPerson[], port = 0): Promise<TestOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const byLogin = new Map(people.map((person) => [person.login, person]));
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    scopes: ["openid", "profile", "email", "groups"],
    claims: { openid: ["sub"], profile: ["name", "preferred_username", "uid"], email: ["email", "email_verified"], groups: ["groups"] },
    async findAccount(_ctx, id) {
      const person = byLogin.get(id);
      if (!person) return undefined;
      return {
        accountId: id,
        async claims() {
          const { login, ...claims } = person;
          return { sub: login, email: `${login}@lab.example`, email_verified: true, ...claims };
        },
      };
    },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["oidc-test-cookie-key"] },
  });
  server.on("request", provider.callback());
  return {
    issuer,
    env: {
      GPUDESK_OIDC_ISSUER: issuer,
      GPUDESK_OIDC_CLIENT_ID: TEST_CLIENT_ID,
      GPUDESK_OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      GPUDESK_OIDC_SCOPES: "openid profile email groups",
      GPUDESK_OIDC_UNIX_LOGIN_CLAIM: "uid",
      GPUDESK_OIDC_NAME: "Lab SSO",
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Goes through the provider's pages as a browser would, without one: from
 * the authorization URL gpudesk answered with, through the login and
 * consent forms, to the redirect back to gpudesk (returned, not followed).
 */
export async function signInAtProvider(authorizationUrl: string, login: string, stopAt: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = authorizationUrl;
  let init: RequestInit = {};
  for (let step = 0; step < 20; step++) {
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, { ...init, redirect: "manual", headers: { ...(init.headers as Record<string, string>), cookie } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const location = response.headers.get("location");
    if (location) {
      const next = new URL(location, url).href;
      if (next.startsWith(stopAt)) return next;
      url = next;
      init = {};
      continue;
    }
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="([a-z]+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`the provider answered ${response.status} without a form at ${url}:\n${html.slice(0, 500)}`);
    const body = new URLSearchParams({ prompt, ...(prompt === "login" ? { login, password: "any" } : {}) });
    url = new URL(action.replace(/&amp;/g, "&"), url).href;
    init = { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } };
  }
  throw new Error("the provider's pages did not lead back to gpudesk in 20 steps");
}
