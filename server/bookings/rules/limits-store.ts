import type { Prisma, PrismaClient } from "@prisma/client";
import { hostRuleSchema, type Limits, type LimitsInput, NO_LIMITS } from "@/lib/domain/team-schema";
import { z } from "zod";

type Client = Prisma.TransactionClient | PrismaClient;

export const teamSubject = (teamId: string) => `team:${teamId}`;
export const personSubject = (userId: string) => `user:${userId}`;

const storedHosts = z.array(hostRuleSchema);

const limitsSelect = { subject: true, maxGpus: true, gpuHoursPer7Days: true, maxBookingMinutes: true, hosts: true } as const;

function toLimits(row: { maxGpus: number | null; gpuHoursPer7Days: number | null; maxBookingMinutes: number | null; hosts: string | null } | null): Limits {
  if (!row) return NO_LIMITS;
  // Written by saveLimits through the same schema; a row that no longer parses (edited by hand) limits nothing rather than everything.
  const hosts = row.hosts === null ? null : (storedHosts.safeParse(JSON.parse(row.hosts)).data ?? null);
  return { maxGpus: row.maxGpus, gpuHoursPer7Days: row.gpuHoursPer7Days, maxBookingMinutes: row.maxBookingMinutes, hosts };
}

/** The stored limits of these subjects ("team:…", "user:…"); none stored: no limits. */
export async function readLimits(client: Client, subjects: string[]): Promise<Map<string, Limits>> {
  const rows = await client.bookingLimit.findMany({ where: { subject: { in: subjects } }, select: limitsSelect });
  const bySubject = new Map(rows.map((row) => [row.subject, toLimits(row)]));
  return new Map(subjects.map((subject) => [subject, bySubject.get(subject) ?? NO_LIMITS]));
}

/** Replaces the kinds named in `input` (null clears one); returns the limits before and after, for the audit log. */
export async function saveLimits(tx: Prisma.TransactionClient, subject: string, input: LimitsInput): Promise<{ before: Limits; after: Limits }> {
  const before = (await readLimits(tx, [subject])).get(subject) ?? NO_LIMITS;
  const after: Limits = {
    maxGpus: input.maxGpus !== undefined ? input.maxGpus : before.maxGpus,
    gpuHoursPer7Days: input.gpuHoursPer7Days !== undefined ? input.gpuHoursPer7Days : before.gpuHoursPer7Days,
    maxBookingMinutes: input.maxBookingMinutes !== undefined ? input.maxBookingMinutes : before.maxBookingMinutes,
    hosts: input.hosts !== undefined ? input.hosts : before.hosts,
  };
  const data = { ...after, hosts: after.hosts === null ? null : JSON.stringify(after.hosts) };
  if (Object.values(after).every((value) => value === null)) {
    await tx.bookingLimit.deleteMany({ where: { subject } });
  } else {
    await tx.bookingLimit.upsert({ where: { subject }, create: { subject, ...data }, update: data });
  }
  return { before, after };
}
