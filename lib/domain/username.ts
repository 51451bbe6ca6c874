import * as z from "zod";

/**
 * A username as gpudesk compares it, wherever it comes from (the form, a
 * directory, an admin): Unicode compatibility forms folded (NFKC: full-width
 * `ｌｉｎａ`, mathematical `𝐥𝐢𝐧𝐚` and `ℓina` are `lina`, as LDAP servers match
 * them), lower case, without surrounding spaces. The throttle, the directory
 * and the account all see this one spelling.
 */
export function normalizeUsername(raw: string): string {
  return raw.slice(0, 256).normalize("NFKC").toLowerCase().normalize("NFKC").trim();
}

/** A gpudesk username: 2 to 32 letters, digits, `_` and `.`, after normalizeUsername. */
export const usernameSchema = z
  .string()
  .transform(normalizeUsername)
  .pipe(
    z
      .string()
      .min(2, "is at least 2 characters")
      .max(32, "is at most 32 characters")
      .regex(/^[a-z0-9_.]+$/, "may contain letters, digits, '_' and '.'"),
  );
