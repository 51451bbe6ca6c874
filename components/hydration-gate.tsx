"use client";

import { useEffect, useState } from "react";

/**
 * Every form control of the page stays disabled until React runs its
 * scripts, then the page is marked hydrated (`<html data-hydrated>`). Before
 * that a click does nothing and what is typed is reset when React takes the
 * form over (a password form came back empty; a sign-in form submitted
 * itself as a plain GET): on a slow phone or a loaded machine a person
 * would type into a form that does not work yet. Links work at once. The
 * wrapper is a `fieldset` with no box (`display: contents`) and no role, so
 * neither the layout nor the accessibility tree sees it; end-to-end tests
 * wait for controls to be enabled, as Playwright's actions do by themselves.
 */
export function HydrationGate({ children }: { children: React.ReactNode }) {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    setHydrated(true);
    document.documentElement.dataset.hydrated = "";
  }, []);
  return (
    <fieldset role="presentation" disabled={!hydrated} className="contents">
      {children}
    </fieldset>
  );
}
