import type { AlertUpdate } from "@/lib/domain/alerts";
import type { AlertPersistence } from "@/server/alerts/alert-monitor";
import type { AlertRow } from "@/server/alerts/alert-store";

export interface RecordedChange {
  event: AlertUpdate["event"];
  key: string;
  kind: string;
  at: number;
  row: AlertRow;
}

/** Test support: alerts kept in memory, every change recorded with its time. */
export function memoryPersistence(): AlertPersistence & { rows: AlertRow[]; changes: RecordedChange[] } {
  const rows: AlertRow[] = [];
  const changes: RecordedChange[] = [];
  let counter = 0;
  return {
    rows,
    changes,
    async loadOpen() {
      return rows.filter((row) => row.closedAt === null);
    },
    async open({ condition, openedAt, since }) {
      const existing = rows.find((row) => row.subjectKey === condition.key && row.closedAt === null);
      if (existing) return existing;
      const row: AlertRow = {
        id: `alert-${(counter += 1)}`,
        kind: condition.kind,
        subjectKey: condition.key,
        hostId: condition.hostId,
        gpuUuid: condition.gpuUuid,
        gpuIndex: condition.gpuIndex,
        reservationId: condition.bookingId,
        userIds: JSON.stringify(condition.userIds),
        message: condition.message,
        evidence: JSON.stringify({ ...condition.evidence, since: new Date(since).toISOString() }),
        openedAt: new Date(openedAt),
        closedAt: null,
        acknowledgedAt: null,
        acknowledgedById: null,
      };
      rows.push(row);
      return row;
    },
    async close({ key, closedAt }) {
      const row = rows.find((candidate) => candidate.subjectKey === key && candidate.closedAt === null);
      if (!row) return null;
      row.closedAt = new Date(closedAt);
      return row;
    },
    async announce(row, event) {
      const at = (event === "closed" ? row.closedAt : row.openedAt)?.getTime() ?? 0;
      changes.push({ event, key: row.subjectKey, kind: row.kind, at, row });
    },
  };
}
