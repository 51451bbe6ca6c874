import * as z from "zod";

/** Password rules, shared by the account forms, the API, the CLI and better-auth. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

/**
 * The one password policy beyond length: what a password may not be made
 * of. Control characters (NUL, tabs, escapes …) and spaces alone are not a
 * password anyone typed; a form, a script or a terminal produced them.
 * Answers the field message, or null when the password is acceptable.
 */
export function passwordProblem(password: string): string | null {
  if (password.trim() === "") return "is not only spaces";
  // NULs, escapes, other control and format characters: a password of those alone looks empty and is typed by nobody.
  if (!/[^\p{C}\p{Z}\s]/u.test(password)) return "has at least one visible character";
  return null;
}

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, `is at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `is at most ${PASSWORD_MAX} characters`)
  .superRefine((password, ctx) => {
    const problem = passwordProblem(password);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** Settings → Account: the current password proves it is them; the new one follows the policy. */
export const changePasswordSchema = z.object({
  currentPassword: z.string().min(1, "is required").max(PASSWORD_MAX),
  newPassword: passwordSchema,
});

/** An admin's reset: a temporary password the person must replace at their next sign-in (unless `mustChange` is false). */
export const resetPasswordSchema = z.object({
  password: passwordSchema,
  mustChange: z.boolean().default(true),
});
