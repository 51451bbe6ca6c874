"use client";

import { type FormEvent, Fragment, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { describeLimits } from "@/lib/domain/limits-format";
import type { Limits, LimitsInput, TeamView } from "@/lib/domain/team-schema";
import { Field, inputClass } from "@/components/forms/field";
import { LimitsForm } from "@/components/teams/limits-form";
import { buttonClass } from "@/components/ui/button-styles";
import * as t from "@/components/ui/table-styles";

/** One team: its limits (a form), its members (lead, accounting team), and adding or removing people. */
export function TeamCard({ team, hostNames, onChanged, onDeleted }: { team: TeamView; hostNames: string[]; onChanged: (team: TeamView) => void; onDeleted: () => void }) {
  const headingId = `team-${team.id}`;
  const [username, setUsername] = useState("");
  const [lead, setLead] = useState(false);
  const [memberError, setMemberError] = useState<string | null>(null);
  /** The member whose own limits are open for editing. */
  const [editing, setEditing] = useState<string | null>(null);

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

  /** Saves the team's limits; the card shows the team as the server now has it. */
  async function saveTeamLimits(body: { limits: LimitsInput }) {
    const result = await apiRequest<{ team: TeamView }>("PATCH", `/api/v1/teams/${team.id}`, body);
    if (result.ok) onChanged(result.data.team);
    return result;
  }

  /** Saves a person's own limits (PUT /api/v1/users/:id/limits); an empty form clears them. */
  async function saveOwnLimits(userId: string, body: { limits: LimitsInput }) {
    const result = await apiRequest<{ limits: Limits }>("PUT", `/api/v1/users/${userId}/limits`, body);
    if (result.ok) {
      const own = Object.values(result.data.limits).some((value) => value !== null) ? result.data.limits : null;
      onChanged({ ...team, members: team.members.map((member) => (member.userId === userId ? { ...member, limits: own } : member)) });
    }
    return result;
  }

  async function remove() {
    if (!window.confirm(`Delete the team ${team.name}? Its bookings keep their history.`)) return;
    const result = await apiRequest("DELETE", `/api/v1/teams/${team.id}`);
    if (result.ok) onDeleted();
  }

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
            {team.members.map((member) => {
              const who = member.username ?? member.name;
              return (
                <Fragment key={member.userId}>
                  <tr className={t.bodyRow}>
                    <td className={t.td}>{member.name || member.username} {member.username && member.name !== member.username ? <span className="text-slate-500">({member.username})</span> : null}</td>
                    <td className={t.td}>{member.lead ? "lead" : ""}</td>
                    <td className={t.td}>{member.accounting ? "yes" : "no"}</td>
                    <td className={t.td}>{member.limits ? describeLimits(member.limits).join(" · ") || "—" : "—"}</td>
                    <td className={`${t.td} whitespace-nowrap text-right`}>
                      <button
                        type="button"
                        className={buttonClass("ghost", "sm")}
                        aria-expanded={editing === member.userId}
                        onClick={() => setEditing((current) => (current === member.userId ? null : member.userId))}
                        aria-label={`Own limits of ${who}`}
                      >
                        Own limits
                      </button>
                      <button type="button" className={buttonClass("ghost", "sm")} onClick={() => removeMember(member.userId)} aria-label={`Remove ${who} from ${team.name}`}>
                        Remove
                      </button>
                    </td>
                  </tr>
                  {editing === member.userId && (
                    <tr className={t.bodyRow}>
                      <td className={t.td} colSpan={5}>
                        <LimitsForm
                          label={`Own limits of ${who}`}
                          title={`${who}'s own limits: each one set overrides ${team.name}'s for them, in every team (empty: the team's)`}
                          limits={member.limits}
                          save={(body) => saveOwnLimits(member.userId, body)}
                          hostNames={hostNames}
                        />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
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

      <LimitsForm label={`Limits of ${team.name}`} title="Limits (empty: none)" limits={team.limits} save={saveTeamLimits} hostNames={hostNames}>
        <button type="button" className={`${buttonClass("danger", "sm")} ml-auto`} onClick={remove}>
          Delete team
        </button>
      </LimitsForm>
    </section>
  );
}
