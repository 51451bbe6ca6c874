"use client";

import { useEffect, useState } from "react";
import { apiRequest, type ApiResult } from "@/lib/api-client";
import { afterFirstScreen } from "@/components/live/live-fleet-store";
import type { NotificationSettingsView, PersonEvent } from "@/lib/domain/person-notices";

/**
 * Whether the signed-in person wants this event on the page (Settings →
 * Notifications). Live notices already come only when they do (the server's
 * dispatcher decides); this is for what a page reads back by itself, such as
 * a grant or an idle warning found on loading, which must follow the same
 * choice. Unknown until read: nothing is shown meanwhile.
 */
export function usePageNoticeChoice(event: PersonEvent): boolean | null {
  const [onPage, setOnPage] = useState<boolean | null>(null);
  useEffect(() => {
    let cancelled = false;
    // After the page's first screen (the fleet's snapshot goes first), one read for every notice that asks at once.
    const cancelFirst = afterFirstScreen(() => {
      void readChoices().then((result) => {
        if (cancelled) return;
        // A failed read falls back to showing: a missed grant or release costs more than an unwanted notice.
        setOnPage(result.ok ? (result.data.preferences.find((preference) => preference.event === event)?.onPage ?? true) : true);
      });
    });
    return () => {
      cancelled = true;
      cancelFirst();
    };
  }, [event]);
  return onPage;
}

let reading: Promise<ApiResult<NotificationSettingsView>> | null = null;

/** The person's choices; notices that ask while a read is on its way share it (a later ask reads again: Settings may have changed them). */
function readChoices(): Promise<ApiResult<NotificationSettingsView>> {
  reading ??= apiRequest<NotificationSettingsView>("GET", "/api/v1/me/notifications").finally(() => {
    reading = null;
  });
  return reading;
}
