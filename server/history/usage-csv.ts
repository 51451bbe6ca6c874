import type { HostUsage, PersonUsage } from "@/lib/domain/usage-types";

export type UsageTable = "people" | "hosts";

/**
 * RFC 4180 fields; text that a spreadsheet would run as a formula
 * (=, +, -, @ first) is prefixed with a quote mark, since names come from users.
 */
function field(value: string | number | null): string {
  if (value === null) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : "";
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function csvLines(header: string[], rows: (string | number | null)[][]): string {
  return [header, ...rows].map((row) => row.map(field).join(",")).join("\r\n") + "\r\n";
}

export function toCsv(table: UsageTable, people: PersonUsage[], hosts: HostUsage[]): string {
  if (table === "people") {
    return csvLines(
      ["person", "username", "booked_gpu_hours", "used_gpu_hours", "efficiency_pct", "idle_booked_gpu_hours", "gpus", "simulated", "used_without_booking_gpu_hours", "unknown_booked_gpu_hours", "handed_back_gpu_hours"],
      people.map((p) => [
        p.label,
        p.username,
        p.bookedGpuHours,
        p.usedGpuHours,
        p.efficiencyPct,
        p.idleBookedGpuHours,
        p.gpus,
        p.simulated ? "yes" : "no",
        p.usedWithoutBookingGpuHours ?? null,
        p.unknownGpuHours,
        p.handedBackGpuHours,
      ]),
    );
  }
  return csvLines(
    ["host", "gpus", "reported_gpu_hours", "used_gpu_hours", "mean_util_pct", "booked_gpu_hours", "idle_booked_gpu_hours", "busy_gpu_hours", "unknown_booked_gpu_hours", "handed_back_gpu_hours"],
    hosts.map((h) => [h.hostName, h.gpus, h.reportedGpuHours, h.usedGpuHours, h.meanUtilPct, h.bookedGpuHours, h.idleBookedGpuHours, h.busyGpuHours, h.unknownGpuHours, h.handedBackGpuHours]),
  );
}
