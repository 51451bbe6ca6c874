"use client";

import { useMemo, useState } from "react";
import { formatGpuHours, formatPct } from "@/lib/format/usage-format";
import type { HostUsage, PersonUsage } from "@/lib/domain/usage-types";

interface Column<T> {
  key: string;
  label: string;
  value: (row: T) => string | number | null;
  format?: (row: T) => React.ReactNode;
  numeric?: boolean;
}

type Direction = "ascending" | "descending";

/** A table whose column headers sort it (click again to reverse); missing values sort last. */
function SortableTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  initialSort,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  initialSort: { key: string; direction: Direction };
}) {
  const [sort, setSort] = useState(initialSort);
  const sorted = useMemo(() => {
    const column = columns.find((c) => c.key === sort.key) ?? columns[0]!;
    const factor = sort.direction === "ascending" ? 1 : -1;
    return [...rows].sort((a, b) => {
      const x = column.value(a);
      const y = column.value(b);
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      return (typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y))) * factor;
    });
  }, [rows, columns, sort]);

  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr className="border-b border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-950/40">
            {columns.map((column) => {
              const active = sort.key === column.key;
              return (
                <th
                  key={column.key}
                  scope="col"
                  aria-sort={active ? sort.direction : "none"}
                  className={`px-4 py-2 text-xs font-semibold tracking-wide whitespace-nowrap text-slate-500 uppercase dark:text-slate-400 ${column.numeric ? "text-right" : ""}`}
                >
                  <button
                    type="button"
                    className="inline-flex items-center gap-1 rounded uppercase hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:text-white"
                    onClick={() =>
                      setSort({
                        key: column.key,
                        direction: active && sort.direction === "descending" ? "ascending" : active ? "descending" : column.numeric ? "descending" : "ascending",
                      })
                    }
                  >
                    {column.label}
                    <span aria-hidden className={active ? "" : "invisible"}>
                      {sort.direction === "ascending" ? "▲" : "▼"}
                    </span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {sorted.length === 0 && (
            <tr>
              <td colSpan={columns.length} className="px-4 py-6 text-center text-slate-500 dark:text-slate-400">
                Nothing in this range
              </td>
            </tr>
          )}
          {sorted.map((row) => (
            <tr key={rowKey(row)} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
              {columns.map((column, i) => {
                const content = column.format ? column.format(row) : column.value(row);
                return i === 0 ? (
                  <th key={column.key} scope="row" className="px-4 py-2.5 font-medium whitespace-nowrap">
                    {content}
                  </th>
                ) : (
                  <td key={column.key} className={`px-4 py-2.5 whitespace-nowrap ${column.numeric ? "text-right tabular-nums" : ""}`}>
                    {content}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const hoursColumn = <T,>(key: string, label: string, value: (row: T) => number): Column<T> => ({
  key,
  label,
  numeric: true,
  value,
  format: (row) => formatGpuHours(value(row)),
});

const PEOPLE_COLUMNS: Column<PersonUsage>[] = [
  {
    key: "person",
    label: "Person",
    value: (p) => p.label,
    format: (p) => (
      <>
        {p.label}
        {p.username && !p.simulated && <span className="ml-1.5 text-xs font-normal text-slate-500 dark:text-slate-400">@{p.username}</span>}
      </>
    ),
  },
  hoursColumn("booked", "Booked GPU-h", (p) => p.bookedGpuHours),
  hoursColumn("used", "Used GPU-h", (p) => p.usedGpuHours),
  { key: "efficiency", label: "Efficiency", numeric: true, value: (p) => p.efficiencyPct, format: (p) => formatPct(p.efficiencyPct) },
  hoursColumn("idle", "Idle booked GPU-h", (p) => p.idleBookedGpuHours),
  hoursColumn("unknown", "Booked, no readings GPU-h", (p) => p.unknownGpuHours),
  { key: "gpus", label: "GPUs", numeric: true, value: (p) => p.gpus },
  hoursColumn("unbooked", "Use without a booking, GPU-h", (p) => p.usedWithoutBookingGpuHours ?? 0),
];

const HOST_COLUMNS: Column<HostUsage>[] = [
  { key: "host", label: "Host", value: (h) => h.hostName },
  { key: "gpus", label: "GPUs", numeric: true, value: (h) => h.gpus },
  { key: "util", label: "Mean util.", numeric: true, value: (h) => h.meanUtilPct, format: (h) => formatPct(h.meanUtilPct) },
  hoursColumn("used", "Used GPU-h", (h) => h.usedGpuHours),
  hoursColumn("reported", "Reported GPU-h", (h) => h.reportedGpuHours),
  hoursColumn("booked", "Booked GPU-h", (h) => h.bookedGpuHours),
  hoursColumn("idle", "Idle booked GPU-h", (h) => h.idleBookedGpuHours),
  hoursColumn("unknown", "Booked, no readings GPU-h", (h) => h.unknownGpuHours),
  hoursColumn("busy", "With processes GPU-h", (h) => h.busyGpuHours),
];

export function PeopleTable({ people }: { people: PersonUsage[] }) {
  return (
    <SortableTable
      caption="GPU time per person"
      columns={PEOPLE_COLUMNS}
      rows={people}
      rowKey={(p) => p.userId ?? "(not booked)"}
      initialSort={{ key: "booked", direction: "descending" }}
    />
  );
}

export function HostsTable({ hosts }: { hosts: HostUsage[] }) {
  return (
    <SortableTable caption="GPU time per host" columns={HOST_COLUMNS} rows={hosts} rowKey={(h) => h.hostId} initialSort={{ key: "host", direction: "ascending" }} />
  );
}
