"use client";

import { useState } from "react";
import type { HostEnforcementView, HostSettingInput } from "@/lib/domain/alerts";
import { apiRequest } from "@/lib/api-client";
import { FormAlert, inputClass } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";

/** One host's "terminate intruders after a grace period", edited and saved on its own. */
function HostRow({ host }: { host: HostEnforcementView }) {
  const [saved, setSaved] = useState<HostSettingInput>(host);
  const [draft, setDraft] = useState<HostSettingInput>(host);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [done, setDone] = useState(false);
  const dirty = JSON.stringify(saved) !== JSON.stringify(draft);

  async function save() {
    setSaving(true);
    setError(null);
    setFields({});
    setDone(false);
    const result = await apiRequest<HostSettingInput>("PUT", `/api/v1/host-settings/${encodeURIComponent(host.hostId)}`, draft);
    setSaving(false);
    if (!result.ok) {
      if (result.error.fields) setFields(result.error.fields);
      else setError(result.error.message);
      return;
    }
    setSaved(result.data);
    setDraft(result.data);
    setDone(true);
  }

  const number = (key: "graceSeconds" | "killAfterSeconds", label: string) => (
    <label className="text-sm">
      <span className="mb-1 block font-medium">{label}</span>
      <input
        type="number"
        min={key === "graceSeconds" ? 0 : 1}
        value={draft[key]}
        aria-invalid={Boolean(fields[key])}
        onChange={(event) => setDraft({ ...draft, [key]: Number(event.target.value) })}
        className={`${inputClass} w-32 tabular-nums`}
      />
      {fields[key] && <span className="mt-1 block text-xs text-red-700 dark:text-red-300">{label} {fields[key]}.</span>}
    </label>
  );

  return (
    <li aria-label={`Enforcement on ${host.hostName}`} className="space-y-3 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-mono font-semibold">{host.hostName}</h3>
        {host.simulated && <Badge tone="warn">simulated</Badge>}
        {host.agentAllowsEnforcement ? (
          <Badge tone="free">agent allows enforcement</Badge>
        ) : (
          <span title="Its agent is not connected, or was started without --allow-enforcement: nothing will be terminated">
            <Badge tone="offline">agent does not allow enforcement</Badge>
          </span>
        )}
      </div>
      <div className="flex flex-wrap items-end gap-4">
        <label className="flex items-center gap-2 pb-2 text-sm font-medium">
          <input
            type="checkbox"
            className="size-4"
            checked={draft.terminateIntruders}
            onChange={(event) => setDraft({ ...draft, terminateIntruders: event.target.checked })}
          />
          Terminate intruders after a grace period
        </label>
        {number("graceSeconds", "Grace (s)")}
        {number("killAfterSeconds", "SIGKILL after (s)")}
        <button type="button" disabled={!dirty || saving} onClick={() => void save()} className={buttonClass("primary")}>
          {saving ? "Saving…" : "Save"}
        </button>
        {done && !dirty && (
          <span role="status" className="pb-2 text-sm text-emerald-800 dark:text-emerald-300">
            Saved
          </span>
        )}
      </div>
      {error && <FormAlert>{error}</FormAlert>}
    </li>
  );
}

/**
 * Per host: whether processes in conflict with an active booking are
 * terminated once the conflict has lasted the grace period (SIGTERM, then
 * SIGKILL after the second delay). Off by default; it only happens where
 * the host's agent runs with --allow-enforcement.
 */
export function HostEnforcementManager({ hosts }: { hosts: HostEnforcementView[] }) {
  if (hosts.length === 0) {
    return <p className="text-sm text-slate-500 dark:text-slate-400">No hosts yet.</p>;
  }
  return (
    <ul role="list" className="space-y-3">
      {hosts.map((host) => (
        <HostRow key={host.hostId} host={host} />
      ))}
    </ul>
  );
}
