"use client";

import { useState, type FormEvent } from "react";
import { apiRequest, type Serialized } from "@/lib/api-client";
import { PASSWORD_MAX, PASSWORD_MIN, passwordSchema } from "@/lib/domain/password";
import type { UserSummary } from "@/server/auth/users";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";

export type UserRow = Serialized<UserSummary>;

type FieldName = "username" | "name" | "password" | "role" | "unixLogin";
type Errors = Partial<Record<FieldName, string>>;

const EMPTY = { username: "", name: "", password: "", role: "member" as "member" | "admin", unixLogin: "" };

/** Required fields and the password rule are checked here for a quick answer; every other rule is the server's, shown next to its field. */
function missing(values: typeof EMPTY): Errors {
  const errors: Errors = {};
  if (!values.username.trim()) errors.username = "is required";
  if (!values.password) errors.password = "is required";
  else {
    const password = passwordSchema.safeParse(values.password);
    if (!password.success) errors.password = password.error.issues[0].message;
  }
  return errors;
}

/** Creates an account. The Unix login follows the username until the admin types one of their own. */
export function UserCreateForm({ onCreated }: { onCreated: (user: UserRow) => void }) {
  const [values, setValues] = useState(EMPTY);
  const [unixLoginTouched, setUnixLoginTouched] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [createdName, setCreatedName] = useState<string | null>(null);
  /** The server said a demo person has this username or login: the admin's answer sends the form again. */
  const [demoQuestion, setDemoQuestion] = useState<string | null>(null);

  const unixLogin = unixLoginTouched ? values.unixLogin : values.username.trim().toLowerCase();
  const set = (field: keyof typeof EMPTY) => (event: { target: { value: string } }) => {
    setValues((current) => ({ ...current, [field]: event.target.value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
  };

  async function submit(event: FormEvent<HTMLFormElement>, takeOverDemo = false) {
    event.preventDefault();
    setFormError(null);
    setDemoQuestion(null);
    setCreatedName(null);
    const local = missing(values);
    if (Object.keys(local).length > 0) {
      setErrors(local);
      return;
    }
    setPending(true);
    const result = await apiRequest<{ user: UserRow }>("POST", "/api/v1/users", {
      username: values.username,
      password: values.password,
      role: values.role,
      ...(values.name.trim() ? { name: values.name } : {}),
      ...(unixLogin.trim() ? { unixLogin } : {}),
      ...(takeOverDemo ? { takeOverDemo: true } : {}),
    });
    setPending(false);
    if (!result.ok && result.error.code === "demo_account") {
      setDemoQuestion(result.error.message);
      return;
    }
    if (!result.ok) {
      const fields = (result.error.fields ?? {}) as Errors;
      setErrors(fields);
      const shown = Object.keys(fields).some((key) => ["username", "name", "password", "role", "unixLogin"].includes(key));
      if (!shown) setFormError(result.error.message);
      return;
    }
    onCreated(result.data.user);
    setCreatedName(result.data.user.username);
    setValues(EMPTY);
    setUnixLoginTouched(false);
    setErrors({});
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Add a person" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <h2 className="mb-4 text-base font-semibold">Add a person</h2>
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        <Field label="Username" error={errors.username} hint="Letters, digits, '_' and '.'; used to sign in.">
          {(control) => (
            <input {...control} name="username" value={values.username} onChange={set("username")} autoComplete="off" autoCapitalize="none" spellCheck={false} maxLength={32} className={inputClass} />
          )}
        </Field>
        <Field label="Name" error={errors.name} hint="Optional; shown in the fleet and on bookings.">
          {(control) => <input {...control} name="name" value={values.name} onChange={set("name")} autoComplete="off" maxLength={100} className={inputClass} />}
        </Field>
        <Field label="Password" error={errors.password} hint={`At least ${PASSWORD_MIN} characters; tell it to them in person.`}>
          {(control) => (
            <input {...control} name="password" type="password" value={values.password} onChange={set("password")} autoComplete="new-password" minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} className={inputClass} />
          )}
        </Field>
        <Field label="Role" error={errors.role} hint="Admins manage people, hosts and every booking.">
          {(control) => (
            <select {...control} name="role" value={values.role} onChange={set("role")} className={inputClass}>
              <option value="member">Member</option>
              <option value="admin">Admin</option>
            </select>
          )}
        </Field>
        <Field label="Unix login" error={errors.unixLogin} hint="Links their processes on the hosts to them. Defaults to the username.">
          {(control) => (
            <input
              {...control}
              name="unixLogin"
              value={unixLogin}
              onChange={(event) => {
                setUnixLoginTouched(true);
                set("unixLogin")(event);
              }}
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={32}
              className={inputClass}
            />
          )}
        </Field>
      </div>
      <div className="mt-4 flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending} className={buttonClass("primary")}>
          {pending ? "Adding…" : "Add person"}
        </button>
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-300">
          {createdName ? `Added ${createdName}. They can sign in with the password you set.` : null}
        </p>
      </div>
      {formError && (
        <div className="mt-3">
          <FormAlert>{formError}</FormAlert>
        </div>
      )}
      {demoQuestion && (
        <div className="mt-3">
          <FormAlert tone="warn">
            <p>{demoQuestion}</p>
            <div className="mt-2 flex gap-2">
              <button type="button" disabled={pending} onClick={(event) => void submit(event as unknown as FormEvent<HTMLFormElement>, true)} className={buttonClass("primary", "sm")}>
                Take it over
              </button>
              <button type="button" onClick={() => setDemoQuestion(null)} className={buttonClass("ghost", "sm")}>
                Keep the demo person
              </button>
            </div>
          </FormAlert>
        </div>
      )}
    </form>
  );
}
