"use client";

import { useState, type FormEvent } from "react";
import { apiRequest } from "@/lib/api-client";
import { PASSWORD_MAX, PASSWORD_MIN, passwordSchema } from "@/lib/domain/password";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";

type Errors = Partial<Record<"currentPassword" | "newPassword" | "again", string>>;

/** Changes the signed-in person's password; their other sessions end. `required`: an admin's temporary one must go first. */
export function PasswordForm({ required }: { required: boolean }) {
  const [values, setValues] = useState({ currentPassword: "", newPassword: "", again: "" });
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);

  const set = (field: keyof typeof values) => (event: { target: { value: string } }) => {
    setValues((current) => ({ ...current, [field]: event.target.value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    setDone(false);
    const local: Errors = {};
    if (!values.currentPassword) local.currentPassword = "is required";
    const rule = passwordSchema.safeParse(values.newPassword);
    if (!values.newPassword) local.newPassword = "is required";
    else if (!rule.success) local.newPassword = rule.error.issues[0].message;
    if (values.again !== values.newPassword) local.again = "is not the same as the new password";
    if (Object.keys(local).length > 0) {
      setErrors(local);
      return;
    }
    setPending(true);
    const result = await apiRequest<{ changed: boolean }>("POST", "/api/v1/me/password", { currentPassword: values.currentPassword, newPassword: values.newPassword });
    setPending(false);
    if (!result.ok) {
      const fields = (result.error.fields ?? {}) as Errors;
      setErrors(fields);
      if (!fields.currentPassword && !fields.newPassword) setFormError(result.error.message);
      return;
    }
    setValues({ currentPassword: "", newPassword: "", again: "" });
    setErrors({});
    setDone(true);
    // The temporary password is gone: the rest of gpudesk is theirs again.
    if (required) window.location.assign("/");
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Change my password" className="space-y-4 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <h2 className="text-base font-semibold">Change my password</h2>
      {required && (
        <FormAlert tone="warn">
          An admin set a temporary password for you. Choose your own to go on: type the temporary one as the current password.
        </FormAlert>
      )}
      <Field label="Current password" error={errors.currentPassword}>
        {(control) => <input {...control} name="currentPassword" type="password" value={values.currentPassword} onChange={set("currentPassword")} autoComplete="current-password" maxLength={PASSWORD_MAX} className={inputClass} />}
      </Field>
      <Field label="New password" error={errors.newPassword} hint={`At least ${PASSWORD_MIN} characters.`}>
        {(control) => <input {...control} name="newPassword" type="password" value={values.newPassword} onChange={set("newPassword")} autoComplete="new-password" maxLength={PASSWORD_MAX} className={inputClass} />}
      </Field>
      <Field label="New password again" error={errors.again}>
        {(control) => <input {...control} name="again" type="password" value={values.again} onChange={set("again")} autoComplete="new-password" maxLength={PASSWORD_MAX} className={inputClass} />}
      </Field>
      {formError && <FormAlert>{formError}</FormAlert>}
      {done && (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
          Password changed. You were signed out everywhere else.
        </p>
      )}
      <p className="text-sm text-slate-600 dark:text-slate-400">Changing it signs you out on every other browser and device.</p>
      <button type="submit" disabled={pending} className={buttonClass("primary")}>
        {pending ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}
