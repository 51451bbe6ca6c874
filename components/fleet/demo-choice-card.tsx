"use client";

import { useEffect, useState } from "react";
import { describeDemoEnded, type DemoChoice, type DemoEnded, type DemoStatus } from "@/lib/domain/demo-choice";
import { useOptionalCurrentUser } from "@/components/auth/current-user";

type Stage = { kind: "hidden" } | { kind: "asking"; status: DemoStatus; pending: DemoChoice | null; error: string | null } | { kind: "done"; said: string };

/**
 * The first admin's question on the fleet page while the simulated fleet
 * runs and nobody has chosen: is this a demo or the lab? "The lab" ends the
 * demo in one step (as `gpudesk demo off`) and says what it did.
 */
export function DemoChoiceCard() {
  const user = useOptionalCurrentUser();
  const [stage, setStage] = useState<Stage>({ kind: "hidden" });
  const isAdmin = user?.can.administer === true;

  useEffect(() => {
    if (!isAdmin) return;
    let live = true;
    void fetch("/api/v1/demo")
      .then((response) => (response.ok ? (response.json() as Promise<DemoStatus>) : null))
      .then((status) => {
        if (live && status?.ask) setStage({ kind: "asking", status, pending: null, error: null });
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [isAdmin]);

  if (stage.kind === "hidden") return null;
  if (stage.kind === "done") {
    return (
      <section role="status" aria-label="Demo or lab" className="rounded-xl border border-emerald-300 bg-emerald-50 px-5 py-4 text-sm text-emerald-950 dark:border-emerald-800 dark:bg-emerald-950 dark:text-emerald-100">
        {stage.said}
      </section>
    );
  }

  const { status, pending, error } = stage;
  async function choose(choice: DemoChoice) {
    setStage({ kind: "asking", status, pending: choice, error: null });
    try {
      const response = await fetch("/api/v1/demo", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ choice }) });
      const body = (await response.json().catch(() => null)) as { ended?: DemoEnded | null; error?: { message: string } } | null;
      if (!response.ok) {
        setStage({ kind: "asking", status, pending: null, error: body?.error?.message ?? "The server refused; try again." });
        return;
      }
      const said = body?.ended ? describeDemoEnded(body.ended) : "Kept: this server stays a demo. `gpudesk demo off` ends it when it becomes your lab.";
      setStage({ kind: "done", said });
      // The fleet loses its simulated hosts within seconds; the header's "simulated" mark goes with a reload.
      if (body?.ended) window.setTimeout(() => window.location.reload(), 4000);
    } catch {
      setStage({ kind: "asking", status, pending: null, error: "The server cannot be reached. Try again in a moment." });
    }
  }

  const real = status.realHosts === 0 ? "No real host reports here yet." : `${status.realHosts} real ${status.realHosts === 1 ? "host reports" : "hosts report"} here already; nothing of theirs changes.`;
  return (
    <section aria-labelledby="demo-choice-title" className="rounded-xl border border-sky-300 bg-sky-50 px-5 py-4 text-sm text-sky-950 dark:border-sky-800 dark:bg-sky-950 dark:text-sky-100">
      <h2 id="demo-choice-title" className="text-base font-semibold">
        Is this server a demo, or your lab?
      </h2>
      <p className="mt-1">
        It runs the demo: {status.simulatedHosts} simulated hosts, with demo people (alice … frank), their bookings and alerts. {real}
      </p>
      <p className="mt-1">
        <strong>The lab</strong> stops the simulated fleet for good, retires the demo people (no sign-in, their Unix logins own no process; past usage keeps their
        names) and ends the demo&apos;s bookings and alerts, each in the audit log. Same as <code>gpudesk demo off</code>.
      </p>
      <div className="mt-3 flex flex-wrap gap-3">
        <button
          type="button"
          disabled={pending !== null}
          onClick={() => void choose("lab")}
          className="rounded-lg bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800 disabled:opacity-60"
        >
          {pending === "lab" ? "Ending the demo…" : "This is the lab"}
        </button>
        <button
          type="button"
          disabled={pending !== null}
          onClick={() => void choose("demo")}
          className="rounded-lg border border-sky-400 px-4 py-2 font-medium hover:bg-sky-100 disabled:opacity-60 dark:hover:bg-sky-900"
        >
          Keep the demo
        </button>
      </div>
      {error && (
        <p role="alert" className="mt-2 text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </section>
  );
}
