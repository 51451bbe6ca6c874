import { formatDurationMinutes } from "@/lib/domain/booking-window";
import type { Limits } from "@/lib/domain/team-schema";

/** Limits in words, one phrase per limit set: "16 GPUs at once", "2000 GPU-hours per 7 days", … (the admin page and the form). */
export function describeLimits(limits: Limits): string[] {
  const parts: string[] = [];
  if (limits.maxGpus !== null) parts.push(`${limits.maxGpus} GPU${limits.maxGpus === 1 ? "" : "s"} at once`);
  if (limits.gpuHoursPer7Days !== null) parts.push(`${limits.gpuHoursPer7Days} GPU-hours per 7 days`);
  if (limits.maxBookingMinutes !== null) parts.push(`bookings up to ${formatDurationMinutes(limits.maxBookingMinutes)}`);
  if (limits.hosts !== null) {
    const hosts = limits.hosts.map((rule) => (rule.windows?.length ? `${rule.host} (${rule.windows.length} window${rule.windows.length > 1 ? "s" : ""})` : rule.host));
    parts.push(`hosts: ${hosts.join(", ") || "none"}`);
  }
  return parts;
}
