import type { WaitReason } from "@/lib/domain/waitlist-schema";

/**
 * Why a request waits, in the sentence the API and the CLI give
 * (server/waitlist/waiting-because.ts), with its kind for styling and tests.
 */
export function WaitReasonText({ reason }: { reason: WaitReason }) {
  const text = reason.message.charAt(0).toUpperCase() + reason.message.slice(1);
  return (
    <p className="text-amber-800 dark:text-amber-300" data-testid="waiting-because" data-kind={reason.kind}>
      {text}
    </p>
  );
}
