import { plugSignIn } from "@/server/auth/sign-in-plug";
import { OIDC_PROVIDER_ID, oidcPlugins } from "@/server/sso/oidc";
import { passwordSignIn } from "@/server/sso/password-sign-in";

/**
 * Plugs single sign-on (an OpenID provider, an LDAP directory: server/sso/)
 * into gpudesk's sign-in. The server, the command line and the test setup
 * call it once before anything signs in; what it plugs in acts only where
 * GPUDESK_OIDC_* or GPUDESK_LDAP_URL say so.
 */
export function plugSingleSignOn(): void {
  plugSignIn({ plugins: oidcPlugins, providerIds: [OIDC_PROVIDER_ID], passwordSignIn });
}
