"use client";

import { useState } from "react";
import { apiRequest } from "@/lib/api-client";

/** Slurm's NodeNames as gpudesk last read them. */
export type SlurmNodes = string[];

/**
 * A host's Slurm node on the hosts page: a host whose name is a Slurm
 * NodeName is that node; an admin maps any other name (bookings there become
 * Slurm reservations).
 */
export function HostSlurmCell({ hostId, hostName, mapped, nodes }: { hostId: string; hostName: string; mapped: string | null; nodes: SlurmNodes }) {
  const [saved, setSaved] = useState(mapped ?? "");
  const [draft, setDraft] = useState(mapped ?? "");
  const [error, setError] = useState<string | null>(null);
  const node = saved || (nodes.includes(hostName) ? hostName : null);

  async function save(event: React.FormEvent) {
    event.preventDefault();
    const result = await apiRequest<{ slurmNode: string | null }>("PATCH", `/api/v1/hosts/${encodeURIComponent(hostId)}`, { slurmNode: draft.trim() || null });
    if (!result.ok) return setError(result.error.fields?.slurmNode ?? result.error.message);
    setError(null);
    setSaved(result.data.slurmNode ?? "");
  }

  return (
    <div className="min-w-[11rem] space-y-1 text-xs">
      <p className={node ? "font-mono" : "text-slate-500 dark:text-slate-400"}>
        {node ? node : "Not a Slurm node"}
        {node && !nodes.includes(node) && <span className="ml-1 font-sans text-amber-700 dark:text-amber-400">(Slurm has no such node)</span>}
      </p>
      <form onSubmit={save} className="flex items-center gap-1" aria-label={`Slurm node of ${hostName}`}>
        <input
          aria-label={`Slurm NodeName of ${hostName}`}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder={nodes.includes(hostName) ? hostName : "NodeName"}
          maxLength={64}
          aria-invalid={error ? true : undefined}
          className="w-28 rounded border border-slate-300 bg-white px-1.5 py-0.5 font-mono dark:border-slate-700 dark:bg-slate-950"
        />
        <button type="submit" disabled={draft.trim() === saved} className="rounded border border-slate-300 px-2 py-0.5 font-medium disabled:opacity-50 dark:border-slate-700">
          Map
        </button>
      </form>
      <p role="alert" className="text-red-700 empty:hidden dark:text-red-400">{error}</p>
    </div>
  );
}
