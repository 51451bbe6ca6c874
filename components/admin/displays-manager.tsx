"use client";

import { useState } from "react";
import { apiRequest, type Serialized } from "@/lib/api-client";
import { DISPLAY_LAYOUTS, displayAddress, type DisplayLayout } from "@/lib/display-query";
import type { DisplaySummary } from "@/server/auth/tokens";
import { CopyBlock, SecretReveal } from "@/components/forms/secret-reveal";
import { markRevoked, RevocableTokens, tokenColumns } from "@/components/tokens/revocable-tokens";

export type DisplayRow = Serialized<DisplaySummary>;

type Created = { name: string; token: string; origin: string };

const TOKEN_COLUMNS = tokenColumns<DisplayRow>("Name", (row) => row.name, "Token");

/**
 * "Name who runs without a booking", per display: off by default; on, the
 * wall shows the display name of whoever runs on a busy GPU that nobody
 * booked (never a login, command or purpose). The server decides what the
 * screen receives; the screen reconnects when this changes.
 */
function NamesRunnerToggle({ row, onChange }: { row: DisplayRow; onChange: (row: DisplayRow) => void }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (row.revokedAt) return <span className="text-xs text-slate-500 dark:text-slate-400">—</span>;
  return (
    <span className="inline-flex flex-col gap-0.5">
      <label className="inline-flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          className="size-4"
          checked={row.namesUnbookedRunner}
          disabled={pending}
          aria-label={`Name who runs without a booking on ${row.name}`}
          onChange={async (event) => {
            const on = event.currentTarget.checked;
            setPending(true);
            setError(null);
            const result = await apiRequest<{ display: DisplayRow }>("PATCH", `/api/v1/displays/${encodeURIComponent(row.id)}`, { namesUnbookedRunner: on });
            setPending(false);
            if (!result.ok) return setError(result.error.message);
            onChange(result.data.display);
          }}
        />
        <span>{row.namesUnbookedRunner ? "Names them" : "Off"}</span>
      </label>
      {error && <span role="alert" className="text-xs text-red-700 dark:text-red-300">{error}</span>}
    </span>
  );
}

const LAYOUT_CHOICES: Record<DisplayLayout, { label: string; hint: string }> = {
  tiles: { label: "Tiles", hint: "each GPU with its load and booker; pages turn when the fleet needs more than one screen" },
  overview: { label: "Overview", hint: "every GPU as one cell coloured by state, grouped by host, on one screen at any fleet size" },
};

/** The new display's address, in the layout the admin picks for that screen (the layout is part of the address). */
function DisplayAddress({ origin, token }: { origin: string; token: string }) {
  const [layout, setLayout] = useState<DisplayLayout>("tiles");
  return (
    <div className="flex flex-col gap-2">
      <fieldset className="flex flex-col gap-1">
        <legend className="mb-1 text-sm font-medium text-emerald-950 dark:text-emerald-100">Layout</legend>
        {DISPLAY_LAYOUTS.map((choice) => (
          <label key={choice} className="flex items-start gap-2 text-sm text-emerald-950 dark:text-emerald-100">
            <input type="radio" name="display-layout" value={choice} checked={layout === choice} onChange={() => setLayout(choice)} className="mt-0.5 size-4" />
            <span>
              <span className="font-medium">{LAYOUT_CHOICES[choice].label}</span>: {LAYOUT_CHOICES[choice].hint}
            </span>
          </label>
        ))}
      </fieldset>
      <CopyBlock label="Open on the wall screen" copyName="Copy address" text={displayAddress(origin, token, layout)} />
    </div>
  );
}

function byName(a: DisplayRow, b: DisplayRow): number {
  return a.name.localeCompare(b.name);
}

/** Wall screens: each reads the live fleet with its own token, and nothing else. */
export function DisplaysManager({ initialDisplays }: { initialDisplays: DisplayRow[] }) {
  const [displays, setDisplays] = useState(initialDisplays);
  const [created, setCreated] = useState<Created | null>(null);
  const replace = (updated: DisplayRow) => setDisplays((current) => current.map((row) => (row.id === updated.id ? updated : row)));
  const columns = [
    ...TOKEN_COLUMNS,
    {
      header: <span title="The wall shows the display name of whoever runs on a busy GPU without a booking">Name who runs without a booking</span>,
      cell: (row: DisplayRow) => <NamesRunnerToggle row={row} onChange={replace} />,
    },
  ];

  return (
    <RevocableTokens
      reveal={
        created && (
          <SecretReveal title={`Display “${created.name}” added`} label="Display token" secret={created.token} onDismiss={() => setCreated(null)}>
            <DisplayAddress origin={created.origin} token={created.token} />
            <p className="text-sm text-emerald-950 dark:text-emerald-100">
              Bookmark this address on the screen&apos;s browser. It shows the live fleet without anyone signing in, and allows nothing else.
            </p>
          </SecretReveal>
        )
      }
      form={{
        ariaLabel: "Add a display",
        heading: "Add a display",
        fieldLabel: "Display name",
        fieldName: "name",
        hint: "Where it hangs, e.g. “Lab 2 hallway”.",
        maxLength: 64,
        submitLabel: "Add display",
        pendingLabel: "Adding…",
        submit: async (name) => {
          const result = await apiRequest<{ token: string; display: DisplayRow }>("POST", "/api/v1/displays", { name });
          if (!result.ok) return result.error.fields?.name ? { ok: false, fieldError: result.error.fields.name } : { ok: false, formError: result.error.message };
          const { token, display } = result.data;
          setDisplays((current) => [...current, display].sort(byName));
          setCreated({ name: display.name, token, origin: window.location.origin });
          return { ok: true };
        },
      }}
      table={{ id: "displays-heading", heading: "Displays", empty: "No wall displays yet.", columns }}
      rows={displays}
      actions={[
        {
          label: "Revoke",
          ariaLabel: (row) => `Revoke ${row.name}`,
          offered: (row) => !row.revokedAt,
          title: (row) => `Revoke “${row.name}”?`,
          confirmLabel: "Revoke display",
          pendingLabel: "Revoking…",
          warning: <p>The screen stops updating at once. To show the fleet there again, add a new display and open its address.</p>,
          run: async (row) => {
            const result = await apiRequest<null>("DELETE", `/api/v1/displays/${encodeURIComponent(row.id)}`);
            if (!result.ok && result.error.status !== 404) return result.error.message;
            setDisplays((current) => markRevoked(current, row.id));
            return null;
          },
        },
      ]}
    />
  );
}
