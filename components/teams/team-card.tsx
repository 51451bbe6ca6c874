"use client";

import { type FormEvent, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { describeLimits } from "@/lib/limits-format";
import type { LimitsInput, TeamView } from "@/lib/team-schema";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";
import * as t from "@/components/ui/table-styles";

const numberOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

/** One team: its limits (a form), its members (lead, accounting team), and adding or removing people. */
export function TeamCard({ team, onChanged, onDeleted }: { team: TeamView; onChanged: (team: TeamView) => void; onDeleted: () => void }) {
  const headingId = `team-${team.id}`;
  const [username, setUsername] = useState("");
  const [lead, setLead] = useState(false);
  const [memberError, setMemberError] = useState<string | null>(null);
  const [limits, setLimits] = useState({
    maxGpus: team.limits.maxGpus?.toString() ?? "",
    gpuHoursPer7Days: team.limits.gpuHoursPer7Days?.toString() ?? "",
    maxBookingMinutes: team.limits.maxBookingMinutes?.toString() ?? "",
    hosts: team.limits.hosts ? JSON.stringify(team.limits.hosts) : "",
  });
  const [limitErrors, setLimitErrors] = useState<Record<string, string>>({});
  const [limitError, setLimitError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  async function addMember(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setMemberError(null);
    const result = await apiRequest<{ team: TeamView }>("POST", `/api/v1/teams/${team.id}/members`, { username, lead });
    if (!result.ok) return setMemberError(result.error.fields?.username ?? result.error.message);
    onChanged(result.data.team);
    setUsername("");
    setLead(false);
  }

  async function removeMember(userId: string) {
    const result = await apiRequest<{ team: TeamView }>("DELETE", `/api/v1/teams/${team.id}/members/${userId}`);
    if (result.ok) onChanged(result.data.team);
    else setMemberError(result.error.message);
  }

  async function saveLimits(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setLimitErrors({});
    setLimitError(null);
    setSaved(false);
    let hosts: LimitsInput["hosts"] = null;
    if (limits.hosts.trim()) {
      try {
        hosts = JSON.parse(limits.hosts);
      } catch {
        return setLimitErrors({ hosts: 'Write the hosts as JSON, e.g. [{"host": "vision-*", "windows": [{"days": [1,2,3,4,5]}]}, {"host": "*"}]' });
      }
    }
    const body = { limits: { maxGpus: numberOrNull(limits.maxGpus), gpuHoursPer7Days: numberOrNull(limits.gpuHoursPer7Days), maxBookingMinutes: numberOrNull(limits.maxBookingMinutes), hosts } };
    const result = await apiRequest<{ team: TeamView }>("PATCH", `/api/v1/teams/${team.id}`, body);
    if (!result.ok) {
      const fields = Object.fromEntries(Object.entries(result.error.fields ?? {}).map(([key, message]) => [key.replace(/^limits\./, "").split(".")[0], message]));
      setLimitErrors(fields);
      if (Object.keys(fields).length === 0) setLimitError(result.error.message);
      return;
    }
    onChanged(result.data.team);
    setSaved(true);
  }

  async function remove() {
    if (!window.confirm(`Delete the team ${team.name}? Its bookings keep their history.`)) return;
    const result = await apiRequest("DELETE", `/api/v1/teams/${team.id}`);
    if (result.ok) onDeleted();
  }

  const set = (field: keyof typeof limits) => (event: { target: { value: string } }) => setLimits((current) => ({ ...current, [field]: event.target.value }));
  const summary = describeLimits(team.limits);

  return (
    <section aria-labelledby={headingId} className="space-y-4 rounded-lg border border-slate-200 p-4 dark:border-slate-800">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id={headingId} className="text-base font-semibold">
          {team.name}
        </h2>
        <p className="text-sm text-slate-500 dark:text-slate-400">
          share {team.share} · {summary.length > 0 ? summary.join(" · ") : "no limits"}
        </p>
      </div>

      <div className={t.tableCard}>
        <table className={t.table} aria-label={`Members of ${team.name}`}>
          <thead>
            <tr className={t.headRow}>
              <th scope="col" className={t.th}>Person</th>
              <th scope="col" className={t.th}>Lead</th>
              <th scope="col" className={t.th}>Accounting team</th>
              <th scope="col" className={t.th}>Own limits</th>
              <th scope="col" className={t.th}><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {team.members.length === 0 && (
              <tr className={t.bodyRow}>
                <td className={t.td} colSpan={5}>Nobody yet.</td>
              </tr>
            )}
            {team.members.map((member) => (
              <tr key={member.userId} className={t.bodyRow}>
                <td className={t.td}>{member.name || member.username} {member.username && member.name !== member.username ? <span className="text-slate-500">({member.username})</span> : null}</td>
                <td className={t.td}>{member.lead ? "lead" : ""}</td>
                <td className={t.td}>{member.accounting ? "yes" : "no"}</td>
                <td className={t.td}>{member.limits ? describeLimits(member.limits).join(" · ") : "—"}</td>
                <td className={`${t.td} text-right`}>
                  <button type="button" className={buttonClass("ghost", "sm")} onClick={() => removeMember(member.userId)} aria-label={`Remove ${member.username ?? member.name} from ${team.name}`}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <form onSubmit={addMember} className="flex flex-wrap items-end gap-3" aria-label={`Add a person to ${team.name}`}>
        <Field label="Username" error={memberError ?? undefined} className="min-w-48">
          {(control) => <input {...control} className={inputClass} value={username} onChange={(event) => setUsername(event.target.value)} maxLength={64} />}
        </Field>
        <label className="flex items-center gap-2 pb-2 text-sm">
          <input type="checkbox" checked={lead} onChange={(event) => setLead(event.target.checked)} /> Team lead
        </label>
        <button type="submit" className={buttonClass("secondary")}>
          Add to {team.name}
        </button>
      </form>

      <form onSubmit={saveLimits} className="space-y-3" aria-label={`Limits of ${team.name}`}>
        <h3 className="text-sm font-semibold">Limits (empty: none)</h3>
        {limitError && <FormAlert>{limitError}</FormAlert>}
        <div className="grid gap-3 sm:grid-cols-3">
          <Field label="GPUs at once" error={limitErrors.maxGpus}>
            {(control) => <input {...control} className={inputClass} type="number" min="0" value={limits.maxGpus} onChange={set("maxGpus")} />}
          </Field>
          <Field label="GPU-hours per 7 days" error={limitErrors.gpuHoursPer7Days}>
            {(control) => <input {...control} className={inputClass} type="number" min="0" step="any" value={limits.gpuHoursPer7Days} onChange={set("gpuHoursPer7Days")} />}
          </Field>
          <Field label="Longest booking (minutes)" error={limitErrors.maxBookingMinutes}>
            {(control) => <input {...control} className={inputClass} type="number" min="1" value={limits.maxBookingMinutes} onChange={set("maxBookingMinutes")} />}
          </Field>
        </div>
        <Field
          label="Hosts (JSON)"
          error={limitErrors.hosts}
          hint={'The first rule whose host pattern matches decides; e.g. [{"host": "vision-*", "windows": [{"days": [0, 6]}]}, {"host": "*"}] gives the vision servers only at weekends. Days: 0 Sunday … 6 Saturday; times in UTC unless "timeZone" is set.'}
        >
          {(control) => <textarea {...control} className={`${inputClass} font-mono`} rows={2} value={limits.hosts} onChange={set("hosts")} />}
        </Field>
        <div className="flex items-center gap-3">
          <button type="submit" className={buttonClass()}>
            Save limits
          </button>
          {saved && <span role="status" className="text-sm text-emerald-700 dark:text-emerald-300">Saved.</span>}
          <button type="button" className={`${buttonClass("danger", "sm")} ml-auto`} onClick={remove}>
            Delete team
          </button>
        </div>
      </form>
    </section>
  );
}
