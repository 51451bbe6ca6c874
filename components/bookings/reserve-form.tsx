"use client";

import { previewSeries } from "@/lib/domain/recurrence";
import { WaitReasonText } from "@/components/waitlist/wait-reason";
import Link from "next/link";
import { useId, useMemo, useState, type FormEvent } from "react";
import { apiRequest } from "@/lib/api-client";
import { toLocalInput } from "@/lib/format/local-time";
import type { BookableHost, MultiNodeBookingView, PolicyView, BookingView } from "@/lib/domain/booking-types";
import { shortModel } from "@/lib/domain/multi-node";
import { AcrossNodesFields, BookedAcross } from "@/components/bookings/across-nodes";
import { unitName, unitRef, unitsPhrase } from "@/lib/domain/gpu-availability";
import { type WaitlistView, waitedPhrase } from "@/lib/domain/waitlist-schema";
import { PURPOSE_MAX } from "@/lib/domain/booking-schema";
import { useGpuStates } from "@/components/live/use-gpu-states";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { useNow } from "@/components/live/use-now";
import { useCurrentUser } from "@/components/auth/current-user";
import { BusyNotice, busyOf, type BusyWarning } from "@/components/bookings/busy-notice";
import { ConflictNotice, conflictOf } from "@/components/bookings/conflict-notice";
import { LimitsRoom, QuotaNotice, quotaOf } from "@/components/teams/limits-room";
import type { QuotaRefusal } from "@/lib/domain/team-schema";
import { GpuPicker } from "@/components/bookings/gpu-picker";
import type { SlurmBlock } from "@/lib/domain/slurm";
import { freeSuggestions, hostAvailability, pickerGpu, type LiveView } from "@/components/bookings/picker-state";
import { LaunchSettingsPanel } from "@/components/bookings/launch-settings-panel";
import { defaultValues, serverFields, toMultiNodeRequest, toRequest, valuesFromQuery, windowOf, type ReserveField, type ReserveValues } from "@/components/bookings/reserve-request";
import { TimeFields } from "@/components/bookings/time-fields";
import { NO_REPEAT, RepeatFields, SeriesResult, type Repeat } from "@/components/bookings/repeat-fields";
import { When } from "@/components/bookings/when";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { buttonClass } from "@/components/ui/button-styles";
import { BookedActions } from "@/components/bookings/booked-actions";

type Errors = Partial<Record<ReserveField, string>>;
type Conflict = NonNullable<ReturnType<typeof conflictOf>> & { requestedStartMs: number };

const card = "rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900";

/**
 * The booking form. Which GPUs are free comes from the live bookings and,
 * for a booking that starts now, from what runs on them (the one rule), so
 * a GPU someone just booked or started using changes without a reload; the
 * server still decides, and a 409 says who was faster or whose work runs
 * there (`gpu_in_use`, which "Book anyway" overrides with `allowBusy`).
 */
interface ReserveFormProps {
  hosts: BookableHost[];
  policy: PolicyView;
  /** The address's query: a GPU card's "Book" or a free slot on the schedule prefills the form. */
  query: Record<string, string | undefined>;
  /** Slurm's jobs and the reservations gpudesk did not make, as the page loaded them: the picker shows their units taken. */
  slurm?: SlurmBlock[];
}

export function ReserveForm(props: ReserveFormProps) {
  // Prefilled times are shown in the viewer's zone, which the server does not know: render in the browser only.
  const now = useNow();
  if (!now) return <div className={`${card} h-96 animate-pulse`} aria-busy="true" aria-label="Loading the form" />;
  return <ReserveFormBody {...props} />;
}

function ReserveFormBody({ hosts, policy, query, slurm }: ReserveFormProps) {
  const fleet = useLiveFleet();
  const viewer = useCurrentUser();
  const states = useGpuStates();
  const now = useNow();
  const serverNow = now ? now + fleet.clockOffsetMs : 0;
  const [values, setValues] = useState<ReserveValues>(() => {
    const initial = valuesFromQuery(query, defaultValues(policy.maxGpusPerUser));
    return { ...initial, host: initial.host || (initial.mode === "gpus" ? (hosts[0]?.name ?? "") : "") };
  });
  const [errors, setErrors] = useState<Errors>({});
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [pending, setPending] = useState(false);
  const [booked, setBooked] = useState<BookingView | null>(null);
  const [bookedAcross, setBookedAcross] = useState<MultiNodeBookingView | null>(null);
  const [queueMe, setQueueMe] = useState(false);
  const [queued, setQueued] = useState<WaitlistView | null>(null);
  const [repeat, setRepeat] = useState<Repeat>(NO_REPEAT);
  const [series, setSeries] = useState<{ created: BookingView[]; refused: { startsAt: string; endsAt: string; message: string }[] } | null>(null);
  /** The person chose to book over someone else's unbooked work. */
  const [allowBusy, setAllowBusy] = useState(false);
  /** The server's 409 gpu_in_use: whose work runs on which of the GPUs asked for. */
  const [refusedBusy, setRefusedBusy] = useState<BusyWarning[] | null>(null);
  /** The team the booking is for (null: the accounting team), and a limit it went over. */
  const [team, setTeam] = useState<string | null>(null);
  const [quota, setQuota] = useState<{ quota: QuotaRefusal; message: string } | null>(null);
  const [roomVersion, setRoomVersion] = useState(0);
  const id = useId();
  const people = useMemo(() => fleet.bookings.map((booking) => booking.bookedBy), [fleet.bookings]);
  const live: LiveView = {
    ready: fleet.hasSnapshot,
    gpus: fleet.gpus,
    onlineHostIds: new Set(fleet.hosts.filter((entry) => entry.online).map((entry) => entry.id)),
    bookings: fleet.bookings,
    states,
    slurm,
  };

  const host = hosts.find((entry) => entry.name === values.host) ?? null;
  // The models "Across nodes" offers: each one the fleet has, named short ("H100").
  const models = useMemo(() => [...new Set(hosts.flatMap((entry) => entry.gpus.filter((gpu) => !gpu.mig).map((gpu) => shortModel(gpu.name))))].sort(), [hosts]);
  // The hosts a node of "Across nodes" may be named on: their whole GPUs.
  const nodeHosts = useMemo(
    () =>
      hosts.map((entry) => {
        const whole = entry.gpus.filter((gpu) => !gpu.mig && !gpu.partitioned);
        return { name: entry.name, models: [...new Set(whole.map((gpu) => shortModel(gpu.name)))], gpus: whole.length };
      }),
    [hosts],
  );
  const window = serverNow ? windowOf(values, serverNow) : null;
  // The series' days the policy would refuse, listed before submit (the rule each occurrence meets when booked).
  const seriesPreview =
    repeat.on && window
      ? previewSeries(window.startMs, window.endMs - window.startMs, repeat.weekdays, repeat.weeks, Intl.DateTimeFormat().resolvedOptions().timeZone, policy, serverNow)
      : null;
  // Only "any N GPUs, now" can wait: a time later on is booked or refused as it is.
  // Any N GPUs, or across nodes (the whole booking waits and is granted with every node at once), starting now.
  const canQueue = (values.mode === "count" || values.mode === "nodes") && values.startMode === "now";
  // Picked GPUs on which someone else's work runs now: warned about before the person submits.
  const busyPicked: BusyWarning[] =
    values.mode === "gpus" && host
      ? host.gpus
          .filter((gpu) => (gpu.mig ? values.slices.includes(unitRef(gpu)) : !gpu.partitioned && values.gpus.includes(gpu.index)))
          .map((gpu) => ({ gpu, view: pickerGpu(gpu, host.id, live, window, serverNow, viewer.id) }))
          .filter(({ view }) => view.kind === "busy")
          .map(({ gpu, view }) => ({ unit: unitName(gpu), hostName: host.name, owners: view.unseen ? [view.unseen] : view.runners, commands: view.commands }))
      : [];

  function change(patch: Partial<ReserveValues>, clears: ReserveField[]) {
    setValues((current) => ({ ...current, ...patch }));
    setErrors((current) => {
      const next = { ...current };
      for (const field of clears) delete next[field];
      return next;
    });
    setConflict(null);
    setRefusedBusy(null);
    setQuota(null);
    // A choice to book over someone's work is for the GPUs it was made for.
    if (patch.gpus !== undefined || patch.slices !== undefined || patch.host !== undefined || patch.mode !== undefined) setAllowBusy(false);
  }

  function toggleGpu(index: number) {
    change({ gpus: values.gpus.includes(index) ? values.gpus.filter((gpu) => gpu !== index) : [...values.gpus, index].sort((a, b) => a - b), slices: [] }, ["gpus"]);
  }

  // Slices and whole GPUs are not booked together (CUDA shows a process one MIG device and no GPU beside it).
  function toggleSlice(ref: string) {
    change({ slices: values.slices.includes(ref) ? values.slices.filter((slice) => slice !== ref) : [...values.slices, ref], gpus: [] }, ["gpus"]);
  }

  async function submit(event?: FormEvent<HTMLFormElement>, anyway = allowBusy) {
    event?.preventDefault();
    if (values.mode === "nodes") return submitAcross();
    const built = toRequest(values);
    if (!built.ok) {
      setErrors(built.fields);
      return;
    }
    setPending(true);
    setRefusedBusy(null);
    const withTeam = team ? { ...built.request, team } : built.request;
    const request = anyway && values.mode === "gpus" ? { ...withTeam, allowBusy: true } : withTeam;
    if (repeat.on) {
      await bookSeries({ ...request, startsAt: request.startsAt ?? new Date(serverNow).toISOString() });
      return;
    }
    const result = await apiRequest<BookingView>("POST", "/api/v1/reservations", request);
    if (result.ok) {
      setPending(false);
      setBooked(result.data);
      return;
    }
    const found = conflictOf(result.error.body);
    if (found && queueMe && canQueue) {
      await joinQueue();
      return;
    }
    setPending(false);
    const over = quotaOf(result.error.code, result.error.body);
    if (over) {
      setQuota({ quota: over, message: result.error.message });
      setRoomVersion((version) => version + 1);
      return;
    }
    const busy = busyOf(result.error.code, result.error.body);
    if (busy) {
      setRefusedBusy(busy);
      return;
    }
    if (found) {
      setConflict({ ...found, requestedStartMs: built.request.startsAt ? Date.parse(built.request.startsAt) : serverNow });
      return;
    }
    const fields = serverFields(result.error.fields);
    setErrors(Object.keys(fields).length > 0 ? fields : { _: result.error.message });
  }

  /** A weekly series whose first booking is `first` (one host or across nodes); it keeps the first day's wall-clock time in the viewer's zone. */
  async function bookSeries(first: Record<string, unknown>) {
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const made = await apiRequest<NonNullable<typeof series>>("POST", "/api/v1/reservations/recurring", { booking: first, weekdays: repeat.weekdays, weeks: repeat.weeks, timeZone });
    setPending(false);
    if (made.ok) {
      setSeries(made.data);
      return;
    }
    const fields = serverFields(made.error.fields);
    setErrors(Object.keys(fields).length > 0 ? fields : { _: made.error.message });
  }

  /** "Across nodes": one booking of every node or none; a 409 says why not enough hosts fit. */
  async function submitAcross() {
    const built = toMultiNodeRequest(values, policy.maxGpusPerUser);
    if (!built.ok) {
      setErrors(built.fields);
      return;
    }
    setPending(true);
    const request = team ? { ...built.request, team } : built.request;
    if (repeat.on) {
      // The same series as one host's: each week's occurrence is one booking across nodes, every node or none.
      await bookSeries({ ...request, startsAt: request.startsAt ?? new Date(serverNow).toISOString() });
      return;
    }
    const result = await apiRequest<MultiNodeBookingView>("POST", "/api/v1/reservations", request);
    setPending(false);
    if (result.ok) {
      setBookedAcross(result.data);
      return;
    }
    if (result.error.code === "conflict" && queueMe && canQueue && window) {
      const { nodes, gpusPerNode, parts, model, purpose } = built.request;
      await queueWith({ ...(parts ? { parts } : { nodes, gpusPerNode }), ...(model !== undefined ? { model } : {}), durationMinutes: Math.round((window.endMs - window.startMs) / 60_000), purpose });
      return;
    }
    const over = quotaOf(result.error.code, result.error.body);
    if (over) {
      setQuota({ quota: over, message: result.error.message });
      setRoomVersion((version) => version + 1);
      return;
    }
    const fields = serverFields(result.error.fields);
    setErrors(Object.keys(fields).length > 0 ? fields : { _: result.error.message });
  }

  /** "Any N GPUs now" that cannot be served: wait for them in the queue instead. */
  async function joinQueue() {
    const built = toRequest(values);
    if (!built.ok || !window) return;
    const request = built.request;
    await queueWith({
      count: request.count,
      ...(request.host ? { host: request.host } : {}),
      ...(request.minFreeMemoryMiB !== undefined ? { minFreeMemoryMiB: request.minFreeMemoryMiB } : {}),
      durationMinutes: Math.round((window.endMs - window.startMs) / 60_000),
      purpose: request.purpose,
    });
  }

  /** Joins the queue with this waitlist body (for the team chosen): the answer shows the place, or the form the refusal. */
  async function queueWith(body: Record<string, unknown>) {
    setPending(true);
    const result = await apiRequest<WaitlistView>("POST", "/api/v1/waitlist", { ...body, ...(team ? { team } : {}) });
    setPending(false);
    if (result.ok) {
      setQueued(result.data);
      return;
    }
    setConflict(null);
    const fields = serverFields(result.error.fields);
    setErrors(Object.keys(fields).length > 0 ? fields : { _: result.error.message });
  }

  if (series) return <SeriesResult created={series.created} refused={series.refused} nowMs={serverNow} onAgain={() => setSeries(null)} />;
  if (booked) return <Booked booking={booked} nowMs={serverNow} onAgain={() => setBooked(null)} />;
  if (bookedAcross) return <BookedAcross booking={bookedAcross} nowMs={serverNow} onAgain={() => setBookedAcross(null)} />;
  if (queued) return <Queued entry={queued} nowMs={serverNow} />;

  return (
    <form onSubmit={submit} noValidate aria-label="Reserve GPUs" className="space-y-5">
      {hosts.length === 0 && <FormAlert tone="warn">No host has reported any GPU yet. Start an agent on a GPU host first.</FormAlert>}

      <section className={`${card} space-y-4`} aria-labelledby={`${id}-what`}>
        <h2 id={`${id}-what`} className="text-base font-semibold">
          Which GPUs
        </h2>
        <div role="radiogroup" aria-label="How to choose GPUs" className="inline-flex rounded-lg border border-slate-300 p-0.5 dark:border-slate-700">
          {(["gpus", "count", "nodes"] as const).map((mode) => (
            <button
              key={mode}
              type="button"
              role="radio"
              aria-checked={values.mode === mode}
              // "Any N GPUs" starts on any host: a host picked for specific GPUs would silently narrow it.
              onClick={() => change({ mode, host: mode === "gpus" ? values.host || (hosts[0]?.name ?? "") : "" }, ["gpus", "count", "host"])}
              className={`rounded-md px-3 py-1.5 text-sm font-medium ${values.mode === mode ? "bg-sky-600 text-white dark:bg-sky-500 dark:text-slate-950" : "text-slate-700 dark:text-slate-300"}`}
            >
              {mode === "gpus" ? "Pick GPUs" : mode === "count" ? "Any N GPUs" : "Across nodes"}
            </button>
          ))}
        </div>

        {values.mode !== "nodes" && (
          <Field label="Host" error={errors.host}>
            {(control) => (
              <select {...control} name="host" value={values.host} onChange={(event) => change({ host: event.target.value, gpus: [] }, ["host", "gpus"])} className={`${inputClass} sm:max-w-md`}>
                {values.mode === "count" && <option value="">Any host</option>}
                {hosts.map((entry) => (
                  <option key={entry.id} value={entry.name}>
                    {entry.name} — {hostAvailability(entry, live, window, serverNow)}
                    {entry.simulated ? " (simulated)" : ""}
                  </option>
                ))}
              </select>
            )}
          </Field>
        )}

        {values.mode === "nodes" ? (
          <AcrossNodesFields values={values} errors={errors} models={models} hosts={nodeHosts} onChange={change} maxGpusAtOnce={policy.maxGpusPerUser} />
        ) : values.mode === "gpus" ? (
          <div>
            <p id={`${id}-gpus-label`} className="mb-2 text-sm font-medium">
              GPUs {values.gpus.length + values.slices.length > 0 && <span className="font-normal text-slate-500 dark:text-slate-400">({values.gpus.length + values.slices.length} chosen)</span>}
            </p>
            {host && (
              <GpuPicker
                host={host}
                selected={values.gpus}
                onToggle={toggleGpu}
                selectedSlices={values.slices}
                onToggleSlice={toggleSlice}
                live={live}
                window={window}
                nowMs={serverNow}
                viewerId={viewer.id}
                people={people}
                describedBy={errors.gpus ? `${id}-gpus-error` : `${id}-gpus-label`}
                invalid={Boolean(errors.gpus)}
              />
            )}
            {errors.gpus && (
              <p id={`${id}-gpus-error`} className="mt-1 text-sm text-red-700 dark:text-red-300">
                {errors.gpus}.
              </p>
            )}
          </div>
        ) : (
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label="Number of GPUs" error={errors.count}>
              {(control) => (
                <input {...control} type="number" inputMode="numeric" min={1} max={policy.maxGpusPerUser} value={values.count} onChange={(event) => change({ count: event.target.value }, ["count"])} className={inputClass} />
              )}
            </Field>
            <Field label="Free memory on each, at least (GiB)" error={errors.minFreeMemoryMiB} hint="Optional: measured now.">
              {(control) => (
                <input {...control} type="number" inputMode="decimal" min={0} value={values.minFreeGiB} onChange={(event) => change({ minFreeGiB: event.target.value }, ["minFreeMemoryMiB"])} className={inputClass} />
              )}
            </Field>
          </div>
        )}
      </section>

      <section className={card} aria-label="When">
        <TimeFields values={values} errors={errors} onChange={change} window={window} nowMs={serverNow} maxDurationMinutes={policy.maxDurationMinutes} />
        <div className="mt-4 border-t border-slate-100 pt-4 dark:border-slate-800">
          <RepeatFields repeat={repeat} onChange={setRepeat} preview={seriesPreview} nowMs={serverNow} maxAdvanceDays={policy.maxAdvanceDays} />
        </div>
      </section>

      <section className={card}>
        <Field label="Purpose" error={errors.purpose} hint="What runs on them; people who wait for the GPUs see it.">
          {(control) => (
            <input {...control} name="purpose" value={values.purpose} maxLength={PURPOSE_MAX} onChange={(event) => change({ purpose: event.target.value }, ["purpose"])} placeholder="e.g. fine-tune llama-3 8B" className={inputClass} />
          )}
        </Field>
      </section>

      {conflict && (
        <ConflictNotice
          conflicts={conflict.conflicts}
          message={conflict.message}
          onQueue={canQueue ? () => void joinQueue() : undefined}
          suggestion={{
            ...conflict.suggestion,
            freeGpuIndices: freeSuggestions(conflict.suggestion.freeGpuIndices, hosts.find((entry) => entry.name === conflict.suggestion.hostName) ?? null, live, window, serverNow),
          }}
          requestedStartMs={conflict.requestedStartMs}
          nowMs={serverNow}
          onStartAt={(iso) => change({ startMode: "at", startAt: toLocalInput(Date.parse(iso)) }, ["startsAt"])}
          onTakeGpus={(indices) => change({ mode: "gpus", host: conflict.suggestion.hostName ?? values.host, gpus: indices.slice(0, Math.max(values.gpus.length, Number(values.count) || 1)) }, ["gpus"])}
        />
      )}
      {refusedBusy ? (
        <BusyNotice gpus={refusedBusy} refused allowBusy={allowBusy} onAllowBusy={setAllowBusy} pending={pending} onBookAnyway={() => void submit(undefined, true)} />
      ) : (
        busyPicked.length > 0 && <BusyNotice gpus={busyPicked} refused={false} allowBusy={allowBusy} onAllowBusy={setAllowBusy} />
      )}
      {quota && <QuotaNotice quota={quota.quota} message={quota.message} nowMs={serverNow} />}
      {errors._ && <FormAlert>{errors._}</FormAlert>}
      <LimitsRoom team={team} onTeam={(next) => { setTeam(next); setQuota(null); }} version={roomVersion} hostName={values.host || null} />

      {canQueue && (
        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" checked={queueMe} onChange={(event) => setQueueMe(event.target.checked)} className="mt-0.5 size-4 rounded border-slate-300" />
          <span>
            <span className="font-medium">{values.mode === "nodes" ? "Queue me if the nodes are not free now" : "Queue me if none are free now"}</span>
            <span className="block text-slate-500 dark:text-slate-400">You wait in line and get the GPUs as soon as they free up; we tell you on this site and by your webhook.</span>
          </span>
        </label>
      )}

      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={pending || hosts.length === 0} className={buttonClass("primary")}>
          {pending ? "Booking…" : "Book"}
        </button>
        <p className="text-xs text-slate-500 dark:text-slate-400">
          Up to {policy.maxGpusPerUser} GPUs per person at once, up to {policy.maxAdvanceDays} days ahead.
        </p>
      </div>
    </form>
  );
}

function Queued({ entry, nowMs }: { entry: WaitlistView; nowMs: number }) {
  return (
    <section aria-labelledby="queued-title" className={`${card} space-y-3`}>
      <h2 id="queued-title" className="text-lg font-semibold">
        You are number {entry.position} in the queue
      </h2>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        {waitedPhrase(entry)}.{" "}
        {entry.estimatedStartAt ? (
          <>
            Estimated start: <When iso={entry.estimatedStartAt} nowMs={nowMs} />, when current bookings end.
          </>
        ) : (
          "No booking now in the way ends within a week, so there is no estimate yet."
        )}{" "}
        The booking is made for you as soon as GPUs free up, and you are told here at once.
      </p>
      {entry.waitingBecause && <WaitReasonText reason={entry.waitingBecause} />}
      <div className="flex flex-wrap gap-2">
        <Link href="/queue" className={buttonClass("primary")}>
          See the queue
        </Link>
        <Link href="/reservations" className={buttonClass("secondary")}>
          My bookings
        </Link>
      </div>
    </section>
  );
}

function Booked({ booking, nowMs, onAgain }: { booking: BookingView; nowMs: number; onAgain: () => void }) {
  return (
    <section aria-labelledby="booked-title" className={`${card} space-y-4`}>
      <div>
        <h2 id="booked-title" className="text-lg font-semibold">
          Booked: {unitsPhrase(booking.gpus)} on {booking.host.name}
        </h2>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          From <When iso={booking.startsAt} nowMs={nowMs} /> until <When iso={booking.endsAt} nowMs={nowMs} />. Start your job with:
        </p>
        {booking.explanation && (
          <p className="mt-2 text-sm" data-testid="allocation-explanation">
            <span className="font-medium">Why these:</span> {booking.explanation}
          </p>
        )}
      </div>
      <LaunchSettingsPanel launch={booking.launch} slurm={booking.slurm} />
      <BookedActions onAgain={onAgain} />
    </section>
  );
}
