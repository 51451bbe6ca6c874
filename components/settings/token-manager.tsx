"use client";

import { useState } from "react";
import { apiRequest, type Serialized } from "@/lib/api-client";
import type { TokenSummary } from "@/server/auth/tokens";
import { CopyBlock, SecretReveal } from "@/components/forms/secret-reveal";
import { markRevoked, RevocableTokens, tokenColumns } from "@/components/tokens/revocable-tokens";

export type TokenRow = Serialized<TokenSummary>;

type Created = { token: string; label: string; origin: string };

const COLUMNS = tokenColumns<TokenRow>("Label", (row) => row.label, "Prefix");

/** The signed-in person's API tokens: make one (shown once), see when each was used, revoke. */
export function TokenManager({ initialTokens }: { initialTokens: TokenRow[] }) {
  const [tokens, setTokens] = useState(initialTokens);
  const [created, setCreated] = useState<Created | null>(null);

  return (
    <RevocableTokens
      reveal={
        created && (
          <SecretReveal title={`Token “${created.label}” created`} label="New token" secret={created.token} onDismiss={() => setCreated(null)}>
            <CopyBlock label="Try it" copyName="Copy command" text={`curl -H "Authorization: Bearer ${created.token}" ${created.origin}/api/v1/me`} />
          </SecretReveal>
        )
      }
      form={{
        ariaLabel: "Create a token",
        heading: "Create a token",
        description: (
          <>
            Scripts and the command line send it as <code className="text-xs">Authorization: Bearer …</code> and act as you.
          </>
        ),
        fieldLabel: "Label",
        fieldName: "label",
        hint: "What it is for, e.g. “laptop CLI” or “training cluster cron”.",
        maxLength: 100,
        submitLabel: "Create token",
        pendingLabel: "Creating…",
        submit: async (label) => {
          const result = await apiRequest<TokenRow & { token: string }>("POST", "/api/v1/tokens", { label });
          if (!result.ok) return result.error.fields?.label ? { ok: false, fieldError: result.error.fields.label } : { ok: false, formError: result.error.message };
          const { token, ...row } = result.data;
          setTokens((current) => [row, ...current]);
          setCreated({ token, label: row.label, origin: window.location.origin });
          return { ok: true };
        },
      }}
      table={{ id: "tokens-heading", heading: "Your tokens", empty: "No tokens yet. Create one above to use gpudesk from scripts.", columns: COLUMNS }}
      rows={tokens}
      actions={[
        {
          label: "Revoke",
          ariaLabel: (row) => `Revoke ${row.label}`,
          offered: (row) => !row.revokedAt,
          title: (row) => `Revoke “${row.label}”?`,
          confirmLabel: "Revoke token",
          pendingLabel: "Revoking…",
          warning: <p>Anything that uses this token stops working at once. This cannot be undone; make a new token if you need one.</p>,
          run: async (row) => {
            const result = await apiRequest<null>("DELETE", `/api/v1/tokens/${encodeURIComponent(row.id)}`);
            // Already gone on the server: the list was stale, and the token does not work either way.
            if (!result.ok && result.error.status !== 404) return result.error.message;
            setTokens((current) => markRevoked(current, row.id));
            return null;
          },
        },
      ]}
    />
  );
}
