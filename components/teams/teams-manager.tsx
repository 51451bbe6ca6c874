"use client";

import { type FormEvent, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import type { TeamView } from "@/lib/domain/team-schema";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { TeamCard } from "@/components/teams/team-card";
import { buttonClass } from "@/components/ui/button-styles";

/** Every team, and the form that makes one. */
/** `hostNames`: the fleet's hosts, offered where a team's host rules are written. */
export function TeamsManager({ initialTeams, hostNames }: { initialTeams: TeamView[]; hostNames: string[] }) {
  const [teams, setTeams] = useState(initialTeams);
  const [name, setName] = useState("");
  const [share, setShare] = useState("1");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const replace = (team: TeamView) => setTeams((current) => current.map((row) => (row.id === team.id ? team : row)));

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setErrors({});
    setFormError(null);
    setPending(true);
    const result = await apiRequest<{ team: TeamView }>("POST", "/api/v1/teams", { name, share: Number(share) });
    setPending(false);
    if (!result.ok) {
      setErrors(result.error.fields ?? {});
      if (!result.error.fields?.name && !result.error.fields?.share) setFormError(result.error.message);
      return;
    }
    setTeams((current) => [...current, result.data.team].sort((a, b) => a.name.localeCompare(b.name)));
    setName("");
    setShare("1");
  }

  return (
    <div className="space-y-6">
      <form onSubmit={create} aria-labelledby="new-team-heading" className="space-y-3 rounded-lg border border-slate-200 p-4 dark:border-slate-800">
        <h2 id="new-team-heading" className="text-base font-semibold">
          New team
        </h2>
        {formError && <FormAlert>{formError}</FormAlert>}
        {/* Top-aligned: the share's hint below its input would push the name's input and the button down. */}
        <div className="flex flex-wrap items-start gap-3">
          <Field label="Team name" error={errors.name} className="min-w-48 flex-1">
            {(control) => <input {...control} className={inputClass} value={name} onChange={(event) => setName(event.target.value)} maxLength={40} />}
          </Field>
          <Field label="Share" error={errors.share} hint="Weight in the queue's fair share; 1 for all is equal." className="w-40">
            {(control) => <input {...control} className={inputClass} type="number" min="0.1" step="0.1" value={share} onChange={(event) => setShare(event.target.value)} />}
          </Field>
          <button type="submit" className={`${buttonClass()} mt-6`} disabled={pending}>
            Make team
          </button>
        </div>
      </form>

      {teams.length === 0 ? (
        <p className="text-sm text-slate-500 dark:text-slate-400">No teams yet. Bookings count for their person only until there are.</p>
      ) : (
        teams.map((team) => <TeamCard key={team.id} team={team} hostNames={hostNames} onChanged={replace} onDeleted={() => setTeams((current) => current.filter((row) => row.id !== team.id))} />)
      )}
    </div>
  );
}
