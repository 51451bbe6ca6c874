import { countUnits, gpusPhrase, unitNoun } from "@/lib/domain/unit-count";
import type { TeamUsageReport } from "@/lib/domain/team-usage";
import { gpuStateLabel, type GpuReconciliation, type ProcessAttribution } from "@/lib/domain/attribution";
import type { FleetAnswer, GpuBookingNow } from "@/lib/live/fleet-api";
import { bookingTakesUnit, countAvailability, deriveGpuState, describeAvailability, isPartitioned, siliconOf, type SiliconUnit, unitName, unitRef, unitsPhrase, unseenUsePhrase } from "@/lib/domain/gpu-availability";
import type { FleetSnapshot, LiveBooking, LiveGpu } from "@/lib/live/live";
import { type NamedPerson, personName, personWithUsername } from "@/lib/format/person-name";
import { idleSentence, keepsSentence } from "@/lib/domain/idle-release";
import type { BookingView } from "@/lib/domain/booking-types";
import { bookedPhrase } from "@/lib/domain/multi-node";
import { sameHost } from "@/host/cli-client/local-booking";
import { slurmHoldName } from "@/lib/domain/slurm";

/**
 * What the CLI client prints. Pure functions of the API's answers and "now",
 * so that the tables are tested without a server. Times print in the
 * machine's zone (TZ), as `--until 18:00` is read, with their offset:
 * "2026-11-30 21:00 +09:00", and "2026-11-30 12:00Z" in UTC.
 */

export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (value: number) => String(value).padStart(2, "0");
  const offset = -date.getTimezoneOffset();
  const zone = offset === 0 ? "Z" : ` ${offset > 0 ? "+" : "-"}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}${zone}`;
}

/** Columns padded to their widest cell; the last column is not padded. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column])))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

function gib(mib: number | null): string {
  return mib === null ? "?" : (mib / 1024).toFixed(mib >= 10 * 1024 ? 0 : 1);
}

/** The booking that holds a unit at `nowMs`, if any: one of the unit, or of silicon it shares (`bookingTakesUnit`). */
export function activeBooking(bookings: LiveBooking[] | undefined, unit: SiliconUnit, nowMs: number): LiveBooking | undefined {
  return bookings?.find((booking) => bookingTakesUnit(booking, unit) && Date.parse(booking.startsAt) <= nowMs && nowMs < Date.parse(booking.endsAt));
}

/** What `GET /api/v1/fleet` answers; a server older than the booking fields sends only part of it. */
export type FleetView = FleetSnapshot & Partial<Pick<FleetAnswer, "gpuBookings" | "availability">>;

/** The booking holding a GPU now: the server's word, else found in the bookings list. */
function bookingNow(view: FleetView, gpu: LiveGpu, nowMs: number): GpuBookingNow | null {
  const given = view.gpuBookings?.[gpu.uuid];
  if (given) return given;
  const booking = activeBooking(view.bookings, siliconOf(gpu), nowMs);
  if (!booking) return null;
  const { reservationId: bookingId, bookedBy, startsAt, endsAt, purpose } = booking;
  return { reservationId: bookingId, bookedBy, bookedByName: personName(bookedBy), startsAt, until: endsAt, purpose };
}

/** A GPU's state by the one rule: the server's reconciliation, else derived here from its reading and booking (owners unknown). */
function stateNow(view: FleetView, gpu: LiveGpu, nowMs: number): GpuReconciliation {
  const reconciled = view.gpuStates?.[gpu.uuid];
  if (reconciled) return reconciled;
  const online = view.hosts.find((host) => host.id === gpu.hostId)?.online ?? false;
  const booking = bookingNow(view, gpu, nowMs);
  return deriveGpuState({ gpu, online, booking: booking && { reservationId: booking.reservationId, bookedBy: booking.bookedBy }, attributions: new Map() });
}

/** Everyone a view names (bookers and attributed process owners), so that two people who share a display name are told apart. */
function peopleOf(view: FleetView): NamedPerson[] {
  const people: NamedPerson[] = [...(view.bookings ?? []).map((booking) => booking.bookedBy)];
  for (const state of Object.values(view.gpuStates ?? {})) for (const process of state.processes) if (process.runner) people.push(process.runner);
  return people;
}

function runnerName(process: Pick<ProcessAttribution, "runner" | "login">, people: NamedPerson[]): string {
  return process.runner ? personName(process.runner, people) : (process.login ?? "unknown");
}

/** `gpudesk status`: the free count, then host, unit ("GPU 0:2 (1g.10gb)"), model, util, memory, state, bookedBy, until and who runs there. */
export function formatStatus(view: FleetView, nowMs: number): string {
  const people = peopleOf(view);
  // A MIG GPU's slices follow it, one row each ("0:1"), in MIG device order.
  const gpus = [...view.gpus].sort(
    (a, b) => a.hostName.localeCompare(b.hostName) || a.index - b.index || (a.mig?.deviceIndex ?? -1) - (b.mig?.deviceIndex ?? -1),
  );
  const states = gpus.map((gpu) => stateNow(view, gpu, nowMs));
  const rows = gpus.map((gpu, position) => {
    if (isPartitioned(gpu)) {
      const slices = gpus.filter((other) => other.hostId === gpu.hostId && other.mig?.parentUuid === gpu.uuid).length;
      return [gpu.hostName, unitName(gpu), gpu.name, "-", `${gib(gpu.memoryUsedMiB)}/${gib(gpu.memoryTotalMiB)} GiB`, `Split into ${slices} MIG slice${slices === 1 ? "" : "s"}`, "-", "-", "-"];
    }
    const booking = bookingNow(view, gpu, nowMs);
    const runners = [...new Set(states[position].processes.map((process) => runnerName(process, people)))];
    // Use with no process listed: the MEMORY column already says how much is held.
    if (states[position].unseenUse) runners.push("unseen (no process visible)");
    // Slurm holds it: its own job or a reservation gpudesk did not make (until its end), or the booker's job under the booking.
    const slurm = states[position].slurm;
    if (slurm) runners.push(slurm.kind === "booked-job" ? `Slurm job ${slurm.id}` : slurmHoldName(slurm));
    return [
      gpu.hostName,
      unitName(gpu),
      gpu.name,
      // nvidia-smi reports no utilization per MIG device.
      gpu.mig ? "n/r" : gpu.utilizationGpuPct === null ? "?" : `${Math.round(gpu.utilizationGpuPct)}%`,
      `${gib(gpu.memoryUsedMiB)}/${gib(gpu.memoryTotalMiB)} GiB`,
      gpuStateLabel(states[position]),
      booking ? personName(booking.bookedBy, people) : "-",
      booking ? formatTime(booking.until) : slurm?.until ? formatTime(slurm.until) : slurm?.noTimeLimit ? "no time limit" : "-",
      runners.join(", ") || "-",
    ];
  });
  // The one unit count (lib/domain/unit-count.ts), as the fleet header says it: "Units: 3 of 5 free … (2 GPUs, one split into 4 MIG slices)".
  const units = countUnits(gpus);
  const noun = unitNoun(units, 2);
  const split = units.split > 0 ? ` (${gpusPhrase(units)})` : "";
  const summary = `${noun.charAt(0).toUpperCase()}${noun.slice(1)}: ${describeAvailability(countAvailability(states.filter((_, i) => !isPartitioned(gpus[i]!)).map((state) => state.state)))}${split}\n`;
  const footnote = gpus.some((gpu) => gpu.mig) ? "UTIL n/r: not reported; nvidia-smi reports no utilization per MIG slice.\n" : "";
  return summary + formatTable(["HOST", "UNIT", "MODEL", "UTIL", "MEMORY", "STATE", "BOOKER", "UNTIL", "RUNNING"], rows) + footnote;
}

/** The unit a person means by host name (any case, with or without the domain) and ref: "2" for GPU 2, "0:2" for MIG slice 2 of GPU 0. */
export function findGpu(view: FleetView, hostName: string, ref: string): LiveGpu | undefined {
  const exact = view.gpus.find((gpu) => gpu.hostName === hostName && unitRef(gpu) === ref);
  return exact ?? view.gpus.find((gpu) => sameHost(gpu.hostName, hostName) && unitRef(gpu) === ref);
}

/** `gpudesk whois HOST UNIT`: its state, who holds it (purpose, until), who really runs there and since when. */
export function formatWhois(view: FleetView, hostName: string, ref: string, nowMs: number): string | null {
  const gpu = findGpu(view, hostName, ref);
  if (!gpu) return null;
  const people = peopleOf(view);
  const lines = [`${gpu.hostName} ${unitName(gpu)} (${gpu.name}, ${gpu.uuid})`];
  const state = stateNow(view, gpu, nowMs);
  lines.push(`State: ${gpuStateLabel(state, formatTime)}${state.problem ? ` (${state.problem})` : ""}`);
  const booking = bookingNow(view, gpu, nowMs);
  lines.push(
    booking
      ? `Booked by ${personWithUsername(booking.bookedBy)} since ${formatTime(booking.startsAt)} until ${formatTime(booking.until)}: ${booking.purpose} [${booking.reservationId}]`
      : "Not booked now",
  );
  const attributed = new Map(state.processes.map((process) => [process.pid, process]));
  if (state.unseenUse) {
    lines.push(`In use with ${unseenUsePhrase(gpu.memoryUsedMiB)}: a job in another container or PID namespace, or a vGPU guest, that nvidia-smi here cannot name`);
  } else lines.push(gpu.processes.length === 0 ? "Nothing runs there" : "Running there:");
  for (const process of gpu.processes) {
    const who = attributed.get(process.pid);
    const person = who ? runnerName(who, people) : (process.user ?? "unknown");
    const since = process.startedAt ? ` since ${formatTime(process.startedAt)}` : "";
    const memory = process.usedMemoryMiB === null ? "" : `, ${gib(process.usedMemoryMiB)} GiB`;
    const claim = who?.falseClaim ? ` (claims reservation ${who.falseClaim} without its proof)` : "";
    const flag = `${who?.intruder ? (booking ? " (not the booker)" : "") : ""}${claim}`;
    lines.push(`  pid ${process.pid} ${process.command ?? process.name} by ${person}${since}${memory}${flag}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * The `export` lines of `gpudesk env`, for `eval "$(gpudesk env)"`. The
 * `GPUDESK_RESERVATION` line (the booking's id and proof) is there only when
 * the server gave the proof, i.e. to the booker.
 */
export function exportLines(booking: Pick<BookingView, "launch"> & Partial<Pick<BookingView, "id" | "host" | "gpus">>): string {
  const { launch } = booking;
  // What the lines stand for, as a comment eval skips: "# GPU 0:2 (1g.10gb) on node-a (res_1)".
  const named = booking.gpus && booking.host ? [`# ${unitsPhrase(booking.gpus)} on ${booking.host.name}${booking.id ? ` (${booking.id})` : ""}`] : [];
  // A slice is named by its MIG UUID (CUDA takes no index for it); with several, the first: one process sees one MIG device.
  const lines = launch.slices?.length
    ? [`export CUDA_VISIBLE_DEVICES=${launch.cudaVisibleDevices}`]
    : [`export CUDA_DEVICE_ORDER=${launch.cudaDeviceOrder}`, `export CUDA_VISIBLE_DEVICES=${launch.cudaVisibleDevices}`];
  if (launch.reservationValue) lines.push(`export GPUDESK_RESERVATION=${launch.reservationValue}`);
  return [...named, ...lines].join("\n") + "\n";
}

/** What `gpudesk run` says on stderr once its booking is made: "gpudesk: node-a GPU 0:2 (1g.10gb) booked until … (res_1)". */
export function bookedLine(booking: Pick<BookingView, "id" | "host" | "gpus" | "endsAt">): string {
  return `gpudesk: ${booking.host.name} ${unitsPhrase(booking.gpus)} booked until ${formatTime(booking.endsAt)} (${booking.id})\n`;
}

/** A booking as `gpudesk reserve` and `extend` print it, with how to use it. */
export function formatBooking(booking: BookingView): string {
  const indent = (text: string) => text.split("\n").map((line) => `  ${line}`);
  return [
    `Reservation ${booking.id} (${booking.state})`,
    `  ${booking.host.name} ${unitsPhrase(booking.gpus)} (${booking.gpus.map((gpu) => gpu.name).filter((name, i, all) => all.indexOf(name) === i).join(", ")})`,
    `  ${formatTime(booking.startsAt)} to ${formatTime(booking.endsAt)}: ${booking.purpose}`,
    ...(booking.explanation ? [`  Chosen: ${booking.explanation}`] : []),
    "",
    "Launch settings:",
    ...indent(booking.launch.exportIndices),
    ...(booking.launch.exportReservation ? [`  ${booking.launch.exportReservation}`] : []),
    ...indent(booking.launch.docker),
    `  ${booking.launch.torchrun}`,
    `  ${booking.launch.frameworks.pytorch}`,
    "",
  ].join("\n");
}

/** `gpudesk list`. */
export function formatBookingList(bookings: BookingView[]): string {
  if (bookings.length === 0) return "No reservations\n";
  const rows = bookings.map((booking) => [
    booking.id,
    booking.state,
    booking.host.name,
    // A part of a booking across nodes says which node of what, as every surface does.
    booking.multiNode ? `${unitsPhrase(booking.gpus)} (${booking.multiNode.partLabel})` : unitsPhrase(booking.gpus),
    formatTime(booking.startsAt),
    formatTime(booking.endsAt),
    booking.purpose,
  ]);
  return formatTable(["ID", "STATE", "HOST", "UNITS", "FROM", "UNTIL", "PURPOSE"], rows) + formatIdleLines(bookings);
}

/**
 * What `gpudesk release` says: the booking released, once, by its id and
 * with every node for a booking across nodes ("Released res_1 (2 × 8 H100
 * on h100-03 and h100-04)"); it named the part asked for and its host only.
 */
export function releasedLine(booking: BookingView): string {
  if (booking.multiNode) return `Released ${booking.multiNode.id} (${bookedPhrase(booking)})\n`;
  return `Released ${booking.id} (${booking.host.name} ${unitsPhrase(booking.gpus)})\n`;
}

const utcClock = (iso: string) => formatTime(iso).slice(11);

/**
 * One line per booking idle release speaks of: "res_1: Idle since 12:05Z —
 * released at 14:05Z unless used. You can keep it once more: gpudesk keep res_1".
 */
export function formatIdleLines(bookings: BookingView[]): string {
  // A booking across nodes is idle, warned and kept whole: one line for it, by its id, not one per node.
  const lines = bookings.flatMap((view, index) => {
    const idle = view.idle;
    if (!idle || (idle.phase === "idle" && !idle.releaseAt)) return [];
    const booking = view.multiNode?.id;
    if (booking && bookings.findIndex((other) => other.multiNode?.id === booking) !== index) return [];
    const id = booking ?? view.id;
    const sentence = idleSentence(idle, utcClock);
    const named = booking ? `${id} (${bookedPhrase(view)})` : id;
    if (idle.phase !== "warning" && idle.phase !== "due") return [`${named}: ${sentence}`];
    const keep = idle.reportOnly ? "(trial: nothing is released yet)" : idle.keepsLeft > 0 ? `${keepsSentence(idle.keepsLeft)} gpudesk keep ${id}` : keepsSentence(0);
    return [`${named}: ${sentence}. ${keep}`];
  });
  return lines.length > 0 ? `\n${lines.join("\n")}\n` : "";
}

const hoursText = (hours: number) => hours.toFixed(hours >= 100 ? 0 : 1);

/** `gpudesk usage`: per team, its total then each member; then everyone's use without a booking. */
export function formatTeamUsage(report: TeamUsageReport): string {
  const rows: string[][] = [];
  for (const team of report.teams) {
    rows.push([team.name, "(team)", hoursText(team.bookedGpuHours), hoursText(team.usedWithoutBookingGpuHours)]);
    for (const member of team.members) rows.push([team.name, member.username ?? member.name, hoursText(member.bookedGpuHours), hoursText(member.usedWithoutBookingGpuHours)]);
  }
  const since = `${formatTime(new Date(report.fromMs).toISOString())} to ${formatTime(new Date(report.toMs).toISOString())}`;
  const teams = rows.length > 0 ? formatTable(["TEAM", "PERSON", "BOOKED GPU-H", "UNBOOKED GPU-H"], rows) : "No teams.\n";
  const unbooked = report.unbooked.map((row) => [row.label, hoursText(row.usedWithoutBookingGpuHours)]);
  return `${since}\n${teams}${unbooked.length > 0 ? `\nUse without a booking, by who ran it:\n${formatTable(["PERSON", "GPU-H"], unbooked)}` : ""}`;
}
