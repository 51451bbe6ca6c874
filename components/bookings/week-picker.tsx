"use client";

import { useRouter } from "next/navigation";
import { useId } from "react";
import { unitRef, unitName } from "@/lib/domain/gpu-availability";
import type { BookableHost } from "@/lib/domain/booking-types";
import { controlClass } from "@/components/forms/field";

/** Which host's week, and every GPU side by side or one GPU alone: both in the address, so a link shows the same week. */
export function WeekPicker({ hosts, host, gpu }: { hosts: BookableHost[]; host: string; gpu: string | null }) {
  const router = useRouter();
  const id = useId();
  const current = hosts.find((candidate) => candidate.name === host);
  const go = (nextHost: string, nextGpu: string | null) => {
    const params = new URLSearchParams({ view: "week", host: nextHost });
    if (nextGpu !== null) params.set("gpu", nextGpu);
    router.push(`/schedule?${params}`);
  };
  return (
    <div className="flex flex-wrap items-end gap-3 text-sm">
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-host`} className="text-xs text-slate-600 dark:text-slate-300">
          Host
        </label>
        <select id={`${id}-host`} value={host} onChange={(event) => go(event.target.value, null)} className={`${controlClass} h-9 py-1`}>
          {hosts.map((candidate) => (
            <option key={candidate.id} value={candidate.name}>
              {candidate.name}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={`${id}-gpu`} className="text-xs text-slate-600 dark:text-slate-300">
          GPUs
        </label>
        <select id={`${id}-gpu`} value={gpu ?? ""} onChange={(event) => go(host, event.target.value === "" ? null : event.target.value)} className={`${controlClass} h-9 py-1`}>
          <option value="">Every GPU, side by side</option>
          {current?.gpus
            .filter((entry) => !entry.partitioned)
            .map((entry) => (
              <option key={entry.uuid} value={unitRef(entry)}>
                {unitName(entry)}
              </option>
            ))}
        </select>
      </div>
    </div>
  );
}
