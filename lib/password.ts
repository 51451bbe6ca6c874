import { z } from "zod";

/** Password rules, shared by the account form, the API, the CLI and better-auth. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, `is at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `is at most ${PASSWORD_MAX} characters`)
  .refine((password) => password.trim() !== "", "is not only spaces")
  // NULs, escapes, other control and format characters: a password of those alone looks empty and is typed by nobody.
  .refine((password) => /[^\p{C}\p{Z}\s]/u.test(password), "has at least one visible character");
