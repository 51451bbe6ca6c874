import type { MailDeliveryView } from "@/server/notifications/mail-log";
import { Badge } from "@/components/ui/badge";
import * as t from "@/components/ui/table-styles";

const TONE = { delivered: "free", pending: "warn", failed: "danger" } as const;

/** The mail gpudesk sent or is retrying (Settings → Notifications decides what goes by mail). */
export function MailLog({ mail }: { mail: MailDeliveryView[] }) {
  return (
    <section aria-labelledby="mail-log-heading" className="space-y-3">
      <h2 id="mail-log-heading" className="text-base font-semibold">
        Mail
      </h2>
      {mail.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No mail sent yet.</p>
      ) : (
        <div className={t.tableCard}>
          <table className={t.table} aria-labelledby="mail-log-heading">
            <thead>
              <tr className={t.headRow}>
                <th scope="col" className={t.th}>When</th>
                <th scope="col" className={t.th}>To</th>
                <th scope="col" className={t.th}>Subject</th>
                <th scope="col" className={t.th}>Status</th>
              </tr>
            </thead>
            <tbody>
              {mail.map((row) => (
                <tr key={row.id} className={t.bodyRow}>
                  <td className={`${t.td} whitespace-nowrap`}>
                    <time dateTime={row.createdAt}>{row.createdAt.slice(0, 16).replace("T", " ")} UTC</time>
                  </td>
                  <td className={`${t.td} font-mono`}>{row.to}</td>
                  <td className={t.td}>{row.subject}</td>
                  <td className={t.td}>
                    <Badge tone={TONE[row.status]}>{row.status}</Badge>
                    {row.attempts > 1 && <span className="ml-2 text-xs text-slate-500">{row.attempts} attempts</span>}
                    {row.lastError && <span className="block text-xs text-red-700 dark:text-red-300">{row.lastError}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
