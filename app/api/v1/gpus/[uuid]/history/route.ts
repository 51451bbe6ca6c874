import { NextResponse } from "next/server";
import { text } from "@/lib/domain/plain-text";
import { queryRecord, rangeQuerySchema, resolveRange } from "@/lib/domain/usage-range";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { env } from "@/server/core/env";
import { getGpuHistory } from "@/server/history/gpu-history";

export const dynamic = "force-dynamic";

const uuidSchema = text().min(1).max(128);

/** One GPU's history beyond the live 15 minutes: `?range=1h|24h|7d|30d` or `?range=custom&from=…&to=…`. */
export const GET = apiHandler(async (request, context: { params: Promise<{ uuid: string }> }) => {
  await requireUser(request);
  const uuid = uuidSchema.parse((await context.params).uuid);
  const now = Date.now();
  const range = resolveRange(rangeQuerySchema.parse(queryRecord(new URL(request.url).searchParams)), now);
  return NextResponse.json(
    await getGpuHistory({ uuid, range, nowMs: now, minuteRetentionMs: env().GPUDESK_HISTORY_MINUTE_DAYS * 24 * 60 * 60_000 }),
  );
});
