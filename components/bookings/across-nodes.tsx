"use client";

import type { MultiNodeBookingView, BookingView } from "@/lib/domain/booking-types";
import { bookedPhrase, nodeOfLabel } from "@/lib/domain/multi-node";
import { unitsPhrase } from "@/lib/domain/gpu-availability";
import { Field, inputClass } from "@/components/forms/field";
import { LaunchSettingsPanel } from "@/components/bookings/launch-settings-panel";
import { namedPartHosts, type ReserveField, type ReserveValues } from "@/components/bookings/reserve-request";
import { When } from "@/components/bookings/when";
import { BookedActions } from "@/components/bookings/booked-actions";

const card = "rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900";

/** A host "Across nodes" can name for a node: its whole GPUs' short models ("H100") and how many it has. */
export interface NodeHostChoice {
  name: string;
  models: string[];
  gpus: number;
}

/** "Across nodes" in the booking form: how many nodes, GPUs on each, of which model, and the hosts when the person names them. */
export function AcrossNodesFields({
  values,
  errors,
  models,
  hosts,
  onChange,
  maxGpusAtOnce,
}: {
  values: ReserveValues;
  errors: Partial<Record<ReserveField, string>>;
  models: string[];
  /** The hosts a node may be named on. */
  hosts: NodeHostChoice[];
  onChange: (patch: Partial<ReserveValues>, clears: ReserveField[]) => void;
  /** The booking policy's GPUs per person at once: the shapes offered stay within it. */
  maxGpusAtOnce: number;
}) {
  const nodes = Math.max(2, Number(values.nodes) || 2);
  const named = namedPartHosts(values);
  const perNode = Number(values.gpusPerNode) || 1;
  // A node's host holds the GPUs asked for each node, of the model when one is chosen.
  const fits = (host: NodeHostChoice) => host.gpus >= perNode && (!values.model || host.models.includes(values.model));
  return (
    <div className="space-y-3">
      <div className="grid gap-4 sm:grid-cols-3">
        <Field label="Nodes" error={errors.nodes}>
          {(control) => (
            <input {...control} name="nodes" type="number" inputMode="numeric" min={2} value={values.nodes} onChange={(event) => onChange({ nodes: event.target.value }, ["nodes", "_"])} className={inputClass} />
          )}
        </Field>
        <Field label="GPUs per node" error={errors.gpusPerNode}>
          {(control) => (
            <input
              {...control}
              name="gpusPerNode"
              type="number"
              inputMode="numeric"
              min={1}
              max={Math.max(1, Math.floor(maxGpusAtOnce / nodes))}
              value={values.gpusPerNode}
              onChange={(event) => onChange({ gpusPerNode: event.target.value }, ["gpusPerNode", "_"])}
              className={inputClass}
            />
          )}
        </Field>
        <Field label="Model" error={errors.model}>
          {(control) => (
            <select {...control} name="model" value={values.model} onChange={(event) => onChange({ model: event.target.value }, ["model", "_"])} className={inputClass}>
              <option value="">Any model</option>
              {models.map((model) => (
                <option key={model} value={model}>
                  {model}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <fieldset className="space-y-2">
        <legend className="sr-only">Where the nodes go</legend>
        <label className="flex items-center gap-2 text-sm font-medium">
          <input
            type="checkbox"
            name="nameHosts"
            checked={named !== null}
            onChange={(event) => onChange({ partHosts: event.target.checked ? Array.from({ length: nodes }, () => "") : null }, ["parts", "_"])}
            className="h-4 w-4 rounded border-slate-300 dark:border-slate-700"
          />
          Pick the nodes myself
        </label>
        {named && (
          <div className="grid gap-3 sm:grid-cols-2" data-testid="node-hosts">
            {named.map((chosen, rank) => (
              <Field key={rank} label={`Node ${rank + 1}${rank === 0 ? " (rendezvous)" : ""}`}>
                {(control) => (
                  <select
                    {...control}
                    aria-invalid={Boolean(errors.parts) && (chosen === "" || named.indexOf(chosen) !== rank)}
                    name={`partHost${rank}`}
                    value={chosen}
                    onChange={(event) => onChange({ partHosts: named.map((host, index) => (index === rank ? event.target.value : host)) }, ["parts", "_"])}
                    className={inputClass}
                  >
                    <option value="">Choose a host</option>
                    {hosts.map((host) => (
                      <option key={host.name} value={host.name} disabled={!fits(host) || (host.name !== chosen && named.includes(host.name))}>
                        {host.name} — {host.gpus} × {host.models.join(", ") || "GPU"}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
            ))}
          </div>
        )}
        {errors.parts && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            {errors.parts}
          </p>
        )}
        {named && <p className="text-sm text-slate-600 dark:text-slate-400">Each node gets {perNode} GPU{perNode === 1 ? "" : "s"} of its host, whichever are free; node 1 is where the ranks meet.</p>}
      </fieldset>
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="nodes-limit">
        Up to {maxGpusAtOnce} GPUs in all ({nodes} nodes × {Math.max(1, Math.floor(maxGpusAtOnce / nodes))} at most): the booking policy&apos;s limit per person at once.
        An admin changes it in Admin → Policies.
      </p>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        One booking: every node or none. {named ? "Your hosts, in this order" : "gpudesk picks hosts on one fabric where it can"}, and each node gets its launch line (rank,
        rendezvous on the first node, NCCL hints).
      </p>
    </div>
  );
}

/** What the form shows once a booking across nodes is made: each node with its own launch lines. */
export function BookedAcross({ booking, nowMs, onAgain }: { booking: MultiNodeBookingView; nowMs: number; onAgain: () => void }) {
  return (
    <section aria-labelledby="booked-title" className={`${card} space-y-4`}>
      <div>
        <h2 id="booked-title" className="text-lg font-semibold">
          Booked: {bookedPhrase(booking.parts[0])}
        </h2>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          From <When iso={booking.startsAt} nowMs={nowMs} /> until <When iso={booking.endsAt} nowMs={nowMs} />. On each node run{" "}
          <code className="font-mono text-xs">gpudesk run --booking {booking.id} -- python train.py</code>, or use that node&apos;s lines below.
        </p>
        {booking.explanation && (
          <p className="mt-2 text-sm" data-testid="allocation-explanation">
            <span className="font-medium">Why these:</span> {booking.explanation}
          </p>
        )}
        {booking.warnings.map((warning) => (
          <p key={warning} role="alert" className="mt-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-200">
            {warning}
          </p>
        ))}
      </div>
      <NodeLaunches parts={booking.parts} />
      <BookedActions onAgain={onAgain} />
    </section>
  );
}

/** Each node of a booking across nodes with its own launch lines, in rank order. */
export function NodeLaunches({ parts }: { parts: BookingView[] }) {
  return (
    <>
      {parts.map((part) => {
        const node = nodeOfLabel(part.multiNode?.nodeRank ?? 0, part.multiNode?.nodeCount ?? parts.length);
        return (
          <section key={part.id} aria-label={`${part.host.name}, ${node}`} className="space-y-2 border-t border-slate-100 pt-4 dark:border-slate-800">
            <h4 className="text-sm font-semibold">
              {node}: {part.host.name}, {unitsPhrase(part.gpus)}
            </h4>
            <LaunchSettingsPanel launch={part.launch} />
          </section>
        );
      })}
    </>
  );
}
