"use client";

import { useEffect, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { describeLimits } from "@/lib/domain/limits-format";
import { ruleFor } from "@/lib/domain/host-rule-match";
import { formatWhen } from "@/lib/format/local-time";
import type { QuotaRefusal, RoomView } from "@/lib/domain/team-schema";
import { inputClass } from "@/components/forms/field";

const LIMIT_NAMES: Record<QuotaRefusal["limit"], string> = {
  maxGpus: "GPUs at once",
  gpuHoursPer7Days: "GPU-hours per 7 days",
  maxBookingMinutes: "longest booking",
  hosts: "hosts",
};

/**
 * Before submit: the team the booking is for (a choice when the person is in
 * several) and the room its limits leave now. `version` changes make it read
 * the room again (after a refusal).
 */
export function LimitsRoom({ team, onTeam, version, hostName = null }: { team: string | null; onTeam: (team: string | null) => void; version: number; hostName?: string | null }) {
  const [room, setRoom] = useState<RoomView | null>(null);

  useEffect(() => {
    let live = true;
    void apiRequest<RoomView>("GET", `/api/v1/me/limits${team ? `?team=${encodeURIComponent(team)}` : ""}`).then((result) => {
      if (live && result.ok) setRoom(result.data);
    });
    return () => {
      live = false;
    };
  }, [team, version]);

  if (!room || (room.teams.length === 0 && describeLimits(room.limits).length === 0)) return null;
  const parts: string[] = [];
  if (room.gpusNow) parts.push(`${room.gpusNow.used} of ${room.gpusNow.limit} GPUs at once in use now (${Math.max(0, room.gpusNow.limit - room.gpusNow.used)} free)`);
  if (room.gpuHours7Days) parts.push(`${room.gpuHours7Days.used} of ${room.gpuHours7Days.limit} GPU-hours booked in 7 days`);
  const others = describeLimits({ ...room.limits, maxGpus: null, gpuHoursPer7Days: null });
  const whose = room.team ? `${room.team.name}'s limits` : "Your limits";
  // A host the limits' host list leaves out, said before submit (the server would refuse it): the same rule as the booking's check.
  const heldOut = hostName && room.limits.hosts !== null && !ruleFor(room.limits.hosts, hostName) ? hostName : null;

  return (
    <div className="space-y-2 rounded-md border border-slate-200 px-3 py-2 text-sm dark:border-slate-700" aria-label="Room left">
      {room.teams.length > 1 && (
        <label className="flex items-center gap-2">
          <span className="font-medium">Book for</span>
          <select className={`${inputClass} w-auto`} value={room.team?.name ?? ""} onChange={(event) => onTeam(event.target.value || null)}>
            {room.teams.map((entry) => (
              <option key={entry.id} value={entry.name}>
                {entry.name}
                {entry.accounting ? " (accounting team)" : ""}
              </option>
            ))}
          </select>
        </label>
      )}
      <p role="status">
        <span className="font-medium">{whose}:</span> {[...parts, ...others].join(" · ") || "none"}
        {room.teams.length === 1 && room.team ? <span className="text-slate-500 dark:text-slate-400"> (booking for {room.team.name})</span> : null}
      </p>
      {heldOut && (
        <p role="alert" data-testid="host-held-out" className="rounded-md bg-amber-50 px-2 py-1 text-amber-900 dark:bg-amber-950 dark:text-amber-100">
          {whose} leave out {heldOut}: only {room.limits.hosts!.map((rule) => rule.host).join(", ") || "no host"} may be booked, so this booking would be refused. Pick another host.
        </p>
      )}
    </div>
  );
}

/** The server's 409 quota_exceeded with its numbers, in the viewer's zone. */
export function QuotaNotice({ quota, message, nowMs }: { quota: QuotaRefusal; message: string; nowMs: number }) {
  const numbers = quota.used !== null && quota.max !== null ? `${quota.used} of ${quota.max}${quota.requested !== null ? `, this booking asks for ${quota.requested} more` : ""}` : null;
  return (
    <div role="alert" className="space-y-1 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-100">
      <p className="font-medium">
        Over the {quota.scope === "team" ? `team ${quota.subject}'s` : "your own"} limit ({LIMIT_NAMES[quota.limit]})
      </p>
      <p>{message}</p>
      {numbers && <p>Used: {numbers}.</p>}
      {quota.freesAt && <p>Room frees up {formatWhen(quota.freesAt, nowMs)}.</p>}
    </div>
  );
}

/** The quota numbers out of an API error, if it is a 409 quota_exceeded. */
export function quotaOf(code: string, body: Record<string, unknown> | undefined): QuotaRefusal | null {
  if (code !== "quota_exceeded" || !body || typeof body.quota !== "object" || body.quota === null) return null;
  return body.quota as QuotaRefusal;
}
