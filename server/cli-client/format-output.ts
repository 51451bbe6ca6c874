import { GPU_STATE_LABELS } from "@/lib/attribution";
import type { FleetSnapshot, LiveBooking } from "@/lib/live";
import type { ReservationView } from "@/lib/reservation-types";

/**
 * What the CLI client prints. Pure functions of the API's answers and "now",
 * so that the tables are tested without a server. Times print in UTC with
 * their zone, so that output does not depend on the machine's time zone.
 */

export function formatTime(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")}Z`;
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

/** The booking that holds a GPU at `nowMs`, if any. */
export function activeBooking(bookings: LiveBooking[] | undefined, uuid: string, nowMs: number): LiveBooking | undefined {
  return bookings?.find(
    (booking) => booking.gpus.some((gpu) => gpu.uuid === uuid) && Date.parse(booking.startsAt) <= nowMs && nowMs < Date.parse(booking.endsAt),
  );
}

/** `gpudesk status`: host, GPU, model, util, memory, state, holder, until. */
export function formatStatus(snapshot: FleetSnapshot, nowMs: number): string {
  const online = new Map(snapshot.hosts.map((host) => [host.id, host.online]));
  const gpus = [...snapshot.gpus].sort((a, b) => a.hostName.localeCompare(b.hostName) || a.index - b.index);
  const rows = gpus.map((gpu) => {
    const booking = activeBooking(snapshot.bookings, gpu.uuid, nowMs);
    const reconciled = snapshot.gpuStates?.[gpu.uuid];
    const state = reconciled ? GPU_STATE_LABELS[reconciled.state] : online.get(gpu.hostId) === false ? "Offline" : booking ? "Booked" : "Free";
    const holder = reconciled?.holder?.username ?? booking?.holder.username ?? "-";
    return [
      gpu.hostName,
      String(gpu.index),
      gpu.name,
      gpu.utilizationGpuPct === null ? "?" : `${Math.round(gpu.utilizationGpuPct)}%`,
      `${gib(gpu.memoryUsedMiB)}/${gib(gpu.memoryTotalMiB)} GiB`,
      state,
      holder,
      booking ? formatTime(booking.endsAt) : "-",
    ];
  });
  return formatTable(["HOST", "GPU", "MODEL", "UTIL", "MEMORY", "STATE", "HOLDER", "UNTIL"], rows);
}

/** `gpudesk whois HOST GPU`: who holds it, who runs on it, since when. */
export function formatWhois(snapshot: FleetSnapshot, hostName: string, index: number, nowMs: number): string | null {
  const gpu = snapshot.gpus.find((candidate) => candidate.hostName === hostName && candidate.index === index);
  if (!gpu) return null;
  const lines = [`${hostName} GPU ${index} (${gpu.name}, ${gpu.uuid})`];
  const booking = activeBooking(snapshot.bookings, gpu.uuid, nowMs);
  const reconciled = snapshot.gpuStates?.[gpu.uuid];
  if (reconciled) lines.push(`State: ${GPU_STATE_LABELS[reconciled.state]}${reconciled.problem ? ` (${reconciled.problem})` : ""}`);
  lines.push(
    booking
      ? `Held by ${booking.holder.username} (${booking.holder.name}) since ${formatTime(booking.startsAt)} until ${formatTime(booking.endsAt)}: ${booking.purpose} [${booking.reservationId}]`
      : "Not booked now",
  );
  const attributed = new Map((reconciled?.processes ?? []).map((process) => [process.pid, process]));
  if (gpu.processes.length === 0) lines.push("No processes");
  for (const process of gpu.processes) {
    const who = attributed.get(process.pid);
    const person = who?.person?.username ?? who?.login ?? process.user ?? "unknown";
    const since = process.startedAt ? ` since ${formatTime(process.startedAt)}` : "";
    const memory = process.usedMemoryMiB === null ? "" : `, ${gib(process.usedMemoryMiB)} GiB`;
    const flag = who?.intruder ? " (not the holder)" : "";
    lines.push(`  pid ${process.pid} ${process.name} by ${person}${since}${memory}${flag}`);
  }
  return lines.join("\n") + "\n";
}

/** The `export` lines of `gpudesk env`, for `eval "$(gpudesk env)"`. */
export function exportLines(reservation: Pick<ReservationView, "id" | "launch">): string {
  return [`export CUDA_DEVICE_ORDER=${reservation.launch.cudaDeviceOrder}`, `export CUDA_VISIBLE_DEVICES=${reservation.launch.cudaVisibleDevices}`, `export GPUDESK_RESERVATION=${reservation.id}`].join("\n") + "\n";
}

/** A booking as `gpudesk reserve` and `extend` print it, with how to use it. */
export function formatReservation(reservation: ReservationView): string {
  const gpus = reservation.gpus.map((gpu) => gpu.index).join(",");
  return [
    `Reservation ${reservation.id} (${reservation.state})`,
    `  ${reservation.host.name} GPU ${gpus} (${reservation.gpus.map((gpu) => gpu.name).filter((name, i, all) => all.indexOf(name) === i).join(", ")})`,
    `  ${formatTime(reservation.startsAt)} to ${formatTime(reservation.endsAt)}: ${reservation.purpose}`,
    ...(reservation.explanation ? [`  Chosen: ${reservation.explanation}`] : []),
    "",
    "Launch settings:",
    `  ${reservation.launch.exportIndices}`,
    ...(reservation.launch.exportReservation ? [`  ${reservation.launch.exportReservation}`] : []),
    `  ${reservation.launch.docker}`,
    `  ${reservation.launch.torchrun}`,
    `  ${reservation.launch.frameworks.pytorch}`,
    "",
  ].join("\n");
}

/** `gpudesk list`. */
export function formatReservationList(reservations: ReservationView[]): string {
  if (reservations.length === 0) return "No reservations\n";
  const rows = reservations.map((reservation) => [
    reservation.id,
    reservation.state,
    reservation.host.name,
    reservation.gpus.map((gpu) => gpu.index).join(","),
    formatTime(reservation.startsAt),
    formatTime(reservation.endsAt),
    reservation.purpose,
  ]);
  return formatTable(["ID", "STATE", "HOST", "GPUS", "FROM", "UNTIL", "PURPOSE"], rows);
}
