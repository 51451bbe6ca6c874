"use client";

import { useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { activePorts, describePort, fabricKey, type HostFabric } from "@/lib/domain/fabric";

/**
 * A host's fabric on the hosts page: the RDMA ports its agent reported and
 * the label an admin gives it (a rack, switch or fabric name), which
 * booking across nodes uses to keep a job's nodes together.
 */
export function HostFabricCell({ hostId, hostName, fabric, label }: { hostId: string; hostName: string; fabric: HostFabric | null; label: string | null }) {
  const [saved, setSaved] = useState(label ?? "");
  const [draft, setDraft] = useState(label ?? "");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const ports = fabric?.devices.flatMap((device) => device.ports.map((port) => ({ device: device.name, port }))) ?? [];
  const down = ports.length - activePorts(fabric).length;
  const key = fabricKey(fabric, saved || null);

  async function save(event: React.FormEvent) {
    event.preventDefault();
    setPending(true);
    const result = await apiRequest<{ fabricLabel: string | null }>("PATCH", `/api/v1/hosts/${encodeURIComponent(hostId)}`, { fabricLabel: draft.trim() || null });
    setPending(false);
    if (!result.ok) return setError(result.error.fields?.fabricLabel ?? result.error.message);
    setError(null);
    setSaved(result.data.fabricLabel ?? "");
    setDraft(result.data.fabricLabel ?? "");
  }

  return (
    <div className="min-w-[14rem] space-y-1 text-xs">
      {ports.length === 0 ? (
        <p className="text-slate-500 dark:text-slate-400">No InfiniBand or RoCE reported</p>
      ) : (
        <ul aria-label={`RDMA ports of ${hostName}`} className="space-y-0.5 font-mono">
          {ports
            .filter(({ port }) => port.state === "ACTIVE")
            .map(({ device, port }) => (
              <li key={`${device}:${port.port}`}>{describePort(device, port)}</li>
            ))}
          {down > 0 && <li className="font-sans text-slate-500 dark:text-slate-400">{down === 1 ? "1 port" : `${down} ports`} not active</li>}
        </ul>
      )}
      <p className="text-slate-600 dark:text-slate-300">{key ? `Placed with hosts on ${key.said}` : "Fabric not known: give it a label to keep jobs across nodes together"}</p>
      <form onSubmit={save} className="flex items-center gap-1" aria-label={`Fabric label of ${hostName}`}>
        <input
          aria-label={`Fabric of ${hostName}`}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="rack or switch"
          maxLength={64}
          aria-invalid={error ? true : undefined}
          className="w-32 rounded border border-slate-300 bg-white px-1.5 py-0.5 dark:border-slate-700 dark:bg-slate-950"
        />
        <button type="submit" disabled={pending || draft.trim() === saved} className="rounded border border-slate-300 px-2 py-0.5 font-medium disabled:opacity-50 dark:border-slate-700">
          {pending ? "Saving…" : "Save"}
        </button>
      </form>
      {error && (
        <p role="alert" className="text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}
