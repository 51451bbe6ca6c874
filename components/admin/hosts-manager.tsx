"use client";

import { gpusPhrase } from "@/lib/domain/unit-count";
import { useState } from "react";
import { apiRequest, type Serialized } from "@/lib/api-client";
import { installLine, installLineWithTokenFile, isLoopbackUrl } from "@/lib/install-line";
import type { HostSummary } from "@/server/hosts/host-registry";
import { CopyBlock, SecretReveal } from "@/components/forms/secret-reveal";
import { RevocableTokens, type TokenColumn } from "@/components/tokens/revocable-tokens";
import { Badge } from "@/components/ui/badge";
import { TimeAgo } from "@/components/ui/time-ago";
import { useLiveFleet } from "@/components/live/use-live-fleet";
import { HostFabricCell } from "@/components/admin/host-fabric-cell";
import { HostSlurmCell, type SlurmNodes } from "@/components/admin/host-slurm-cell";

export type HostRow = Serialized<HostSummary>;

type Revealed = { title: string; hostName: string; token: string };

const COLUMNS: TokenColumn<HostRow>[] = [
  {
    header: "Name",
    cellClassName: "font-medium whitespace-nowrap",
    cell: (host) => (
      <>
        <span className="font-mono">{host.name}</span>
        {host.simulated && (
          <span className="ml-2">
            <Badge tone="warn">simulated</Badge>
          </span>
        )}
      </>
    ),
  },
  { header: "GPUs", headerClassName: "text-right", cellClassName: "text-right tabular-nums", cell: (host) => gpusPhrase(host.units) },
  { header: "Last seen", cellClassName: "whitespace-nowrap", cell: (host) => <LastSeen hostId={host.id} stored={host.lastSeenAt} /> },
  {
    header: "Driver / CUDA",
    cellClassName: "whitespace-nowrap tabular-nums",
    cell: (host) =>
      host.driverVersion || host.cudaVersion ? `${host.driverVersion ?? "?"} / ${host.cudaVersion ?? "?"}` : <span className="text-slate-400">—</span>,
  },
  { header: "Fabric", cell: (host) => <HostFabricCell hostId={host.id} hostName={host.name} fabric={host.fabric} label={host.fabricLabel} /> },
  {
    header: "Token",
    cell: (host) =>
      host.tokenPrefix ? (
        <span className="font-mono text-xs">{host.tokenPrefix}…</span>
      ) : (
        <span title="The server's own agent runs inside it and needs no token">
          <Badge>built in</Badge>
        </span>
      ),
  },
];

/**
 * GPU hosts: register one (its agent token is shown once, with the line that
 * installs the agent on it), rotate a token, remove a host. `serverUrl` is the
 * address GPU hosts reach this server at.
 */
/** The Slurm column, with Slurm underneath: the node each host is, and its mapping. */
function slurmColumn(nodes: SlurmNodes): TokenColumn<HostRow> {
  return { header: "Slurm node", cell: (host) => <HostSlurmCell hostId={host.id} hostName={host.name} mapped={host.slurmNode} nodes={nodes} /> };
}

export function HostsManager({
  initialHosts,
  serverUrl,
  bundleSha256,
  slurmNodes = null,
}: {
  initialHosts: HostRow[];
  serverUrl: string;
  bundleSha256: string | null;
  /** Slurm's NodeNames, with GPUDESK_SLURM_URL; null without Slurm. */
  slurmNodes?: SlurmNodes | null;
}) {
  const columns = slurmNodes ? [...COLUMNS.slice(0, 5), slurmColumn(slurmNodes), ...COLUMNS.slice(5)] : COLUMNS;
  const [hosts, setHosts] = useState(initialHosts);
  const [revealed, setRevealed] = useState<Revealed | null>(null);

  /** The list from the server; a failed reload keeps what is on screen (the change itself already succeeded). */
  async function reload() {
    const result = await apiRequest<{ hosts: HostRow[] }>("GET", "/api/v1/hosts");
    if (result.ok) setHosts(result.data.hosts);
  }

  return (
    <RevocableTokens
      reveal={
        revealed && (
          <SecretReveal title={revealed.title} label="Agent token" secret={revealed.token} onDismiss={() => setRevealed(null)}>
            <CopyBlock label={`Run on ${revealed.hostName} (as root)`} copyName="Copy install command" text={installLine(serverUrl)} />
            <p className="text-sm text-emerald-950 dark:text-emerald-100">
              It asks for the token above (paste it; it is not shown, and never lands in <code className="font-mono text-xs">ps</code> or the
              shell&apos;s history). It needs Node.js 18 or newer on the host, installs the agent as the systemd service gpudesk-agent and the
              gpudesk command for members, and reports every second. This token lets it report for {revealed.hostName} and no other host. Run
              the same line again to upgrade. Without a terminal: <code className="font-mono text-xs">{installLineWithTokenFile(serverUrl)}</code>.
              From a gpudesk checkout instead: <code className="font-mono text-xs">GPUDESK_AGENT_TOKEN=… npx gpudesk agent --server {serverUrl}</code>
            </p>
          </SecretReveal>
        )
      }
      intro={<InstallHint serverUrl={serverUrl} bundleSha256={bundleSha256} />}
      form={{
        ariaLabel: "Register a host",
        heading: "Register a host",
        fieldLabel: "Host name",
        fieldName: "name",
        hint: "Usually its hostname, e.g. gpu-node-3.",
        maxLength: 63,
        inputProps: { autoCapitalize: "none", spellCheck: false },
        submitLabel: "Register host",
        pendingLabel: "Registering…",
        submit: async (name) => {
          const result = await apiRequest<{ host: { name: string }; token: string }>("POST", "/api/v1/hosts", { name });
          if (!result.ok) {
            // A taken name is the one conflict registering can meet; it belongs next to the name.
            if (result.error.fields?.name) return { ok: false, fieldError: result.error.fields.name };
            if (result.error.code === "conflict") return { ok: false, fieldError: result.error.message };
            return { ok: false, formError: result.error.message };
          }
          const { host, token } = result.data;
          setRevealed({ title: `Host ${host.name} registered`, hostName: host.name, token });
          void reload();
          return { ok: true };
        },
      }}
      table={{ id: "hosts-heading", heading: "Hosts", empty: "No hosts yet. Register one above, then start its agent.", className: "min-w-[60rem]", columns }}
      rows={hosts}
      actions={[
        {
          label: "Rotate token",
          ariaLabel: (host) => `Rotate token of ${host.name}`,
          offered: (host) => Boolean(host.tokenPrefix),
          title: (host) => `Rotate the token of ${host.name}?`,
          confirmLabel: "Rotate token",
          pendingLabel: "Rotating…",
          warning: <p>The current token stops working at once and its agent is disconnected. Start the agent again with the new token, shown next.</p>,
          run: async (host) => {
            const result = await apiRequest<{ host: { name: string }; token: string }>("POST", `/api/v1/hosts/${encodeURIComponent(host.id)}/rotate`);
            if (!result.ok) return result.error.message;
            setRevealed({ title: `New token for ${host.name}`, hostName: host.name, token: result.data.token });
            void reload();
            return null;
          },
        },
        {
          label: "Remove",
          ariaLabel: (host) => `Remove ${host.name}`,
          offered: (host) => Boolean(host.tokenPrefix),
          title: (host) => `Remove ${host.name}?`,
          confirmLabel: "Remove host",
          pendingLabel: "Removing…",
          warning: <p>Its GPUs leave the fleet and its token stops working. A host with bookings on record is kept for their history; rotate its token instead.</p>,
          run: async (host) => {
            const result = await apiRequest<null>("DELETE", `/api/v1/hosts/${encodeURIComponent(host.id)}`);
            // 409: bookings on record; the dialog stays open with the server's reason.
            if (!result.ok && result.error.status !== 404) return result.error.message;
            setHosts((current) => current.filter((row) => row.id !== host.id));
            void reload();
            return null;
          },
        },
      ]}
    />
  );
}

/**
 * How a GPU host joins: the one line, with a warning when the address is one
 * that only this machine can reach, and the bundle's checksum to compare with
 * what the installer prints (this page, over HTTPS and signed in, is the
 * channel that the plain-HTTP download is checked against).
 */
function InstallHint({ serverUrl, bundleSha256 }: { serverUrl: string; bundleSha256: string | null }) {
  return (
    <section aria-labelledby="install-heading" className="space-y-2 rounded-xl border border-slate-200 bg-white p-4 text-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900">
      <h2 id="install-heading" className="text-base font-semibold">
        Add a GPU host
      </h2>
      <p className="text-slate-600 dark:text-slate-300">Register it below, then run this line on the host, as root; it asks for the host&apos;s token:</p>
      <pre aria-label="Install line" className="overflow-x-auto rounded-lg bg-slate-100 px-3 py-2 font-mono text-xs dark:bg-slate-800">
        {installLine(serverUrl)}
      </pre>
      {bundleSha256 && (
        <p className="text-slate-600 dark:text-slate-300">
          The installer checks the agent bundle it downloads and prints its SHA-256; it must be{" "}
          <code aria-label="Bundle checksum" className="font-mono text-xs break-all text-slate-900 dark:text-slate-100">
            {bundleSha256}
          </code>
          .{serverUrl.startsWith("http:") && " Over plain HTTP, compare the two: the installer and its checksum come over the same unprotected connection (docs/host-agent.md)."}
        </p>
      )}
      {isLoopbackUrl(serverUrl) && (
        <p role="alert" className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900 dark:border-amber-800 dark:bg-amber-950/60 dark:text-amber-200">
          {serverUrl} only works on this machine: GPU hosts cannot reach it. Open this page at the address the hosts use, or set
          GPUDESK_PUBLIC_URL (e.g. http://gpudesk.lab:3000) and restart gpudesk.
        </p>
      )}
    </section>
  );
}

/** Last seen as the fleet view says it: the live feed's newest reading; the stored time (written once a minute) only for a host the feed does not have. */
function LastSeen({ hostId, stored }: { hostId: string; stored: string | null }) {
  const live = useLiveFleet().hosts.find((host) => host.id === hostId)?.lastSeenAt;
  return <TimeAgo iso={live ?? stored} />;
}
