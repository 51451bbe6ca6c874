"use client";

import { useState, type FormEvent } from "react";
import { apiRequest, type Serialized } from "@/lib/api-client";
import { installLine, installLineWithTokenFile, isLoopbackUrl } from "@/lib/install-line";
import type { HostSummary } from "@/server/hosts/host-registry";
import { CopyBlock, SecretReveal } from "@/components/forms/secret-reveal";
import { Field, FormAlert, inputClass } from "@/components/forms/field";
import { Badge } from "@/components/ui/badge";
import { buttonClass } from "@/components/ui/button-styles";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import * as t from "@/components/ui/table-styles";
import { TimeAgo } from "@/components/ui/time-ago";

export type HostRow = Serialized<HostSummary>;

type Revealed = { title: string; hostName: string; token: string };
type Action = { kind: "rotate" | "remove"; host: HostRow };

/**
 * GPU hosts: register one (its agent token is shown once, with the line that
 * installs the agent on it), rotate a token, remove a host. `serverUrl` is the
 * address GPU hosts reach this server at.
 */
export function HostsManager({ initialHosts, serverUrl, bundleSha256 }: { initialHosts: HostRow[]; serverUrl: string; bundleSha256: string | null }) {
  const [hosts, setHosts] = useState(initialHosts);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | undefined>();
  const [formError, setFormError] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [action, setAction] = useState<Action | null>(null);
  const [actionPending, setActionPending] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);

  /** The list from the server; a failed reload keeps what is on screen (the change itself already succeeded). */
  async function reload() {
    const result = await apiRequest<{ hosts: HostRow[] }>("GET", "/api/v1/hosts");
    if (result.ok) setHosts(result.data.hosts);
  }

  async function register(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    if (!name.trim()) {
      setNameError("is required");
      return;
    }
    setNameError(undefined);
    setCreating(true);
    const result = await apiRequest<{ host: { name: string }; token: string }>("POST", "/api/v1/hosts", { name });
    setCreating(false);
    if (!result.ok) {
      // A taken name is the one conflict registering can meet; it belongs next to the name.
      if (result.error.fields?.name) setNameError(result.error.fields.name);
      else if (result.error.code === "conflict") setNameError(result.error.message);
      else setFormError(result.error.message);
      return;
    }
    const { host, token } = result.data;
    setRevealed({ title: `Host ${host.name} registered`, hostName: host.name, token });
    setName("");
    await reload();
  }

  async function runAction() {
    if (!action) return;
    const { kind, host } = action;
    setActionPending(true);
    setActionError(null);
    const url = `/api/v1/hosts/${encodeURIComponent(host.id)}`;
    if (kind === "rotate") {
      const result = await apiRequest<{ host: { name: string }; token: string }>("POST", `${url}/rotate`);
      setActionPending(false);
      if (!result.ok) {
        setActionError(result.error.message);
        return;
      }
      setRevealed({ title: `New token for ${host.name}`, hostName: host.name, token: result.data.token });
    } else {
      const result = await apiRequest<null>("DELETE", url);
      setActionPending(false);
      // 409: reservations on record; the dialog stays open with the server's reason.
      if (!result.ok && result.error.status !== 404) {
        setActionError(result.error.message);
        return;
      }
      setHosts((current) => current.filter((row) => row.id !== host.id));
    }
    setAction(null);
    await reload();
  }

  return (
    <div className="space-y-6">
      {revealed && (
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
      )}

      <InstallHint serverUrl={serverUrl} bundleSha256={bundleSha256} />

      <form onSubmit={register} noValidate aria-label="Register a host" className="rounded-xl border border-slate-200 bg-white p-4 sm:p-5 dark:border-slate-800 dark:bg-slate-900">
        <h2 className="mb-4 text-base font-semibold">Register a host</h2>
        <div className="flex flex-wrap items-start gap-3">
          <Field label="Host name" error={nameError} hint="Usually its hostname, e.g. gpu-node-3." className="min-w-0 flex-1 basis-64">
            {(control) => (
              <input
                {...control}
                name="name"
                value={name}
                maxLength={63}
                autoComplete="off"
                autoCapitalize="none"
                spellCheck={false}
                onChange={(event) => {
                  setName(event.target.value);
                  setNameError(undefined);
                }}
                className={inputClass}
              />
            )}
          </Field>
          <button type="submit" disabled={creating} className={`${buttonClass("primary")} sm:mt-6`}>
            {creating ? "Registering…" : "Register host"}
          </button>
        </div>
        {formError && (
          <div className="mt-3">
            <FormAlert>{formError}</FormAlert>
          </div>
        )}
      </form>

      <section aria-labelledby="hosts-heading" className="space-y-3">
        <h2 id="hosts-heading" className="text-base font-semibold">
          Hosts
        </h2>
        {hosts.length === 0 ? (
          <p className="rounded-xl border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-500 dark:border-slate-700 dark:text-slate-400">
            No hosts yet. Register one above, then start its agent.
          </p>
        ) : (
          <div className={t.tableCard}>
            <table className={`${t.table} min-w-[44rem]`} aria-labelledby="hosts-heading">
              <thead>
                <tr className={t.headRow}>
                  <th scope="col" className={t.th}>Name</th>
                  <th scope="col" className={`${t.th} text-right`}>GPUs</th>
                  <th scope="col" className={t.th}>Last seen</th>
                  <th scope="col" className={t.th}>Driver / CUDA</th>
                  <th scope="col" className={t.th}>Token</th>
                  <th scope="col" className={t.th}><span className="sr-only">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {hosts.map((host) => (
                  <tr key={host.id} className={t.bodyRow}>
                    <td className={`${t.td} font-medium whitespace-nowrap`}>
                      <span className="font-mono">{host.name}</span>
                      {host.simulated && (
                        <span className="ml-2">
                          <Badge tone="warn">simulated</Badge>
                        </span>
                      )}
                    </td>
                    <td className={`${t.td} text-right tabular-nums`}>{host.gpuCount}</td>
                    <td className={`${t.td} whitespace-nowrap`}><TimeAgo iso={host.lastSeenAt} /></td>
                    <td className={`${t.td} whitespace-nowrap tabular-nums`}>
                      {host.driverVersion || host.cudaVersion ? `${host.driverVersion ?? "?"} / ${host.cudaVersion ?? "?"}` : <span className="text-slate-400">—</span>}
                    </td>
                    <td className={t.td}>
                      {host.tokenPrefix ? (
                        <span className="font-mono text-xs">{host.tokenPrefix}…</span>
                      ) : (
                        <span title="The server's own agent runs inside it and needs no token">
                          <Badge>built in</Badge>
                        </span>
                      )}
                    </td>
                    <td className={`${t.td} text-right whitespace-nowrap`}>
                      {host.tokenPrefix && (
                        <span className="inline-flex gap-2">
                          <button type="button" aria-label={`Rotate token of ${host.name}`} onClick={() => { setActionError(null); setAction({ kind: "rotate", host }); }} className={buttonClass("secondary", "sm")}>
                            Rotate token
                          </button>
                          <button type="button" aria-label={`Remove ${host.name}`} onClick={() => { setActionError(null); setAction({ kind: "remove", host }); }} className={buttonClass("secondary", "sm")}>
                            Remove
                          </button>
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <ConfirmDialog
        open={action !== null}
        title={action?.kind === "rotate" ? `Rotate the token of ${action.host.name}?` : `Remove ${action?.host.name ?? ""}?`}
        confirmLabel={action?.kind === "rotate" ? "Rotate token" : "Remove host"}
        pendingLabel={action?.kind === "rotate" ? "Rotating…" : "Removing…"}
        pending={actionPending}
        error={actionError}
        onConfirm={runAction}
        onCancel={() => setAction(null)}
      >
        {action?.kind === "rotate" ? (
          <p>The current token stops working at once and its agent is disconnected. Start the agent again with the new token, shown next.</p>
        ) : (
          <p>Its GPUs leave the fleet and its token stops working. A host with reservations on record is kept for their history; rotate its token instead.</p>
        )}
      </ConfirmDialog>
    </div>
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
