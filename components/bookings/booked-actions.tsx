import Link from "next/link";
import { buttonClass } from "@/components/ui/button-styles";

/** What a booked answer offers next, the same under every kind of booking: its list, or another booking. */
export function BookedActions({ onAgain }: { onAgain: () => void }) {
  return (
    <div className="flex flex-wrap gap-2">
      <Link href="/reservations" className={buttonClass("primary")}>
        My bookings
      </Link>
      <button type="button" onClick={onAgain} className={buttonClass("secondary")}>
        Book more
      </button>
    </div>
  );
}
