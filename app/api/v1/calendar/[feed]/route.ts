import { z } from "zod";
import { getPrincipal } from "@/server/auth/guard";
import { AppError } from "@/server/core/errors";
import { apiHandler } from "@/server/http/api-handler";
import { renderCalendarFeed } from "@/server/calendar/calendar-feed";

export const dynamic = "force-dynamic";

const feedParam = z.string().max(200).regex(/^[A-Za-z0-9_~.-]+\.ics$/);

/**
 * A calendar app's subscription: `<secret>.ics`. No sign-in (calendar apps
 * cannot), the address is the key (server/calendar/feed-secret.ts).
 */
export const GET = apiHandler(async (request, context: { params: Promise<{ feed: string }> }) => {
  // A wall display reads the live fleet and nothing else, even with a feed's address (a calendar app sends no token).
  // Other credentials are not asked for here: a revoked or foreign token neither helps nor hurts, the address decides.
  const caller = await getPrincipal(request).catch(() => null);
  if (caller?.kind === "display") throw new AppError("forbidden", "A display token can only read the live fleet");
  const parsed = feedParam.safeParse((await context.params).feed);
  if (!parsed.success) throw new AppError("not_found", "No such calendar feed");
  const body = await renderCalendarFeed(parsed.data.slice(0, -".ics".length));
  return new Response(body, {
    headers: { "content-type": "text/calendar; charset=utf-8", "cache-control": "private, max-age=300", "content-disposition": 'inline; filename="gpudesk.ics"' },
  });
});
