"use client";

import { type WaitReason, waitReasonSentence } from "@/lib/domain/waitlist-schema";
import { useNow } from "@/components/live/use-now";
import { formatWhen } from "@/lib/format/local-time";

/**
 * Why a request waits, in the sentence the API and the CLI give
 * (server/waitlist/waiting-because.ts), with its kind for styling and tests.
 * Its times are the viewer's own ("today 15:04"), like every time on the
 * page; the API's UTC message stands in only before hydration. `tested`
 * false: a second copy of the same reason (the queue's phone layout), which
 * tests do not find by its test id.
 */
export function WaitReasonText({ reason, tested = true }: { reason: WaitReason; tested?: boolean }) {
  const nowMs = useNow(60_000);
  const sentence = nowMs ? waitReasonSentence(reason, (iso) => formatWhen(iso, nowMs)) : reason.message;
  return (
    <p className="text-amber-800 dark:text-amber-300" data-testid={tested ? "waiting-because" : undefined} data-kind={reason.kind}>
      {sentence.charAt(0).toUpperCase() + sentence.slice(1)}
    </p>
  );
}
