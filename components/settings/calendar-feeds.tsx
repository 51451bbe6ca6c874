import { CopyBlock } from "@/components/forms/secret-reveal";

interface CalendarFeedsProps {
  /** Full addresses: the server's public origin and each feed's path. */
  mine: string;
  hosts: { name: string; url: string }[];
}

/** The iCalendar addresses a person adds to their calendar app (server/calendar): their bookings; an admin's also each host's. */
export function CalendarFeeds({ mine, hosts }: CalendarFeedsProps) {
  return (
    <section aria-label="Calendar feeds" className="space-y-4 rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <div>
        <h2 className="text-base font-semibold">Calendar feeds</h2>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          Subscribe to these addresses in a calendar app (Google Calendar: “From URL”; Outlook: “Subscribe from web”; Apple Calendar: “New Calendar
          Subscription”). Each address is a key: whoever has it sees those bookings, so share it with nobody.
        </p>
      </div>
      <CopyBlock label="My bookings" copyName="Copy my calendar address" text={mine} />
      {hosts.length > 0 && (
        <details>
          <summary className="cursor-pointer text-sm font-medium">Each host&apos;s bookings (admins)</summary>
          <div className="mt-3 space-y-3">
            {hosts.map((host) => (
              <CopyBlock key={host.name} label={host.name} copyName={`Copy the calendar address of ${host.name}`} text={host.url} />
            ))}
          </div>
        </details>
      )}
    </section>
  );
}
