"use client";

import { useEffect, useState } from "react";
import { apiRequest } from "@/lib/api-client";
import { nodeOfLabel } from "@/lib/domain/multi-node";
import type { BookingView } from "@/lib/domain/booking-types";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { FormAlert } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";

interface Spare {
  hostName: string;
  gpuIndices: number[];
  sameFabric: boolean;
}

/**
 * A booking across nodes whose node's host is offline, on its card: which
 * node failed (the live fleet's own offline rule, seconds after the agent
 * went silent, not the alert's hold), the spare gpudesk offers and a button
 * that moves the node there (POST replace-part, as `gpudesk reserve
 * --replace-part`). It stays while the host is offline and goes when the
 * host reports again or the node has moved (its part then names the new host).
 */
export function FailedNodes({ nodes, onMoved }: { nodes: BookingView[]; onMoved: () => void }) {
  const fleet = useLiveFleet();
  if (!fleet.hasSnapshot) return null;
  const offline = new Set(fleet.hosts.filter((host) => !host.online).map((host) => host.id));
  const failed = nodes.filter((part) => offline.has(part.host.id));
  if (failed.length === 0) return null;
  return (
    <>
      {failed.map((part) => (
        <FailedNode key={`${part.id}:${part.host.id}`} part={part} nodeCount={nodes.length} onMoved={onMoved} />
      ))}
    </>
  );
}

function FailedNode({ part, nodeCount, onMoved }: { part: BookingView; nodeCount: number; onMoved: () => void }) {
  const [spare, setSpare] = useState<Spare | null | undefined>(undefined);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const node = nodeOfLabel(part.multiNode?.nodeRank ?? 0, part.multiNode?.nodeCount ?? nodeCount);
  const rank = (part.multiNode?.nodeRank ?? 0) + 1;

  useEffect(() => {
    let live = true;
    void apiRequest<{ spare: Spare | null }>("GET", `/api/v1/reservations/${encodeURIComponent(part.id)}/spare`).then((result) => {
      if (!live) return;
      if (result.ok) setSpare(result.data.spare);
      else {
        setSpare(null);
        setError(result.error.message);
      }
    });
    return () => {
      live = false;
    };
  }, [part.id]);

  async function move(host: string) {
    setPending(true);
    setError(null);
    const result = await apiRequest("POST", `/api/v1/reservations/${encodeURIComponent(part.id)}/replace-part`, { host });
    setPending(false);
    if (result.ok) onMoved();
    else setError(Object.values(result.error.fields ?? {})[0] ?? result.error.message);
  }

  return (
    <div role="alert" data-testid="failed-node" className="space-y-2 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-100">
      <p>
        <strong>
          {node.charAt(0).toUpperCase() + node.slice(1)} failed: {part.host.name} is offline.
        </strong>{" "}
        Its agent stopped reporting; the job on the other nodes waits for it.
      </p>
      {spare === undefined ? (
        <p className="text-red-900/80 dark:text-red-200/80">Looking for a spare node…</p>
      ) : spare ? (
        <div className="flex flex-col gap-2 sm:flex-row sm:items-center sm:gap-3">
          <p className="min-w-0 sm:flex-1" data-testid="spare-node">
            Spare free for the rest of the booking: {spare.hostName}, GPU{spare.gpuIndices.length === 1 ? "" : "s"} {spare.gpuIndices.join(", ")}
            {spare.sameFabric ? ", on the fabric of your other nodes" : ""}. Moving keeps the node&apos;s rank; restart the job on all nodes from its last checkpoint.
          </p>
          <button type="button" disabled={pending} onClick={() => void move(spare.hostName)} className={`${buttonClass("primary", "sm")} self-start sm:self-auto`}>
            {pending ? "Moving…" : `Move node ${rank} to ${spare.hostName}`}
          </button>
        </div>
      ) : (
        <p data-testid="spare-node">No spare node of the same model is free for the rest of the booking. It stays booked; it can be moved once one is.</p>
      )}
      <p className="text-xs text-red-900/80 dark:text-red-200/80">
        Or on a command line: <code className="font-mono">gpudesk reserve --replace-part {part.id}{spare ? ` --host ${spare.hostName}` : ""}</code>
      </p>
      {error && <FormAlert>{error}</FormAlert>}
    </div>
  );
}
