import type { AlertKind } from "@/lib/domain/alerts";

/** How long a condition must hold before its alert opens, and stay cleared before it closes. */
export interface RuleTiming {
  holdMs: number;
  clearMs: number;
}

/** What a rule found wrong about one subject at one instant. */
export interface Condition {
  /** One alert per subject: `conflict:<gpu>:<reservation>`, `host_offline:<host>`, … */
  key: string;
  kind: AlertKind;
  /** What must be observed to judge the subject: `gpu:<uuid>` or `host:<id>`. */
  scope: string;
  hostId: string | null;
  gpuUuid: string | null;
  gpuIndex: number | null;
  bookingId: string | null;
  /** Booker first, then the others involved. */
  userIds: string[];
  message: string;
  evidence: Record<string, unknown>;
}

export interface OpenedAlert {
  condition: Condition;
  openedAt: number;
  /** When the condition began (the hold time ago, or longer with tolerated gaps). */
  since: number;
}

export interface ClosedAlert {
  key: string;
  kind: AlertKind;
  closedAt: number;
  reason: "cleared" | "not observed";
}

export interface EngineStep {
  opened: OpenedAlert[];
  closed: ClosedAlert[];
}

/** An alert that was open before a restart: it stays open until its condition clears. */
export interface RestoredAlert {
  key: string;
  kind: AlertKind;
  scope: string;
  openedAt: number;
}

interface Subject {
  kind: AlertKind;
  scope: string;
  phase: "pending" | "open";
  badSince: number;
  /** Start of the current run of good observations; null while bad. */
  goodSince: number | null;
  lastObservedAt: number;
}

/**
 * The hold-time state machine behind every alert, with the clock passed in.
 *
 * - A subject becomes *pending* when its condition is first seen and
 *   *opens* once the condition has held for the rule's hold time.
 * - While pending, a good spell shorter than a quarter of the hold time (at
 *   most the clear time) is tolerated: a noisy signal that is mostly bad
 *   still opens, one that is mostly good does not.
 * - An open alert *closes* only after the condition stayed away for the
 *   clear time, so a signal that hovers around its threshold does not flap.
 * - A subject whose scope is not observed (its host went silent) is frozen;
 *   after `staleMs` unobserved it is dropped, closing its alert.
 */
export class AlertEngine {
  private readonly subjects = new Map<string, Subject>();

  constructor(
    private readonly timing: (kind: AlertKind) => RuleTiming,
    private readonly staleMs: number,
  ) {}

  restore(alerts: RestoredAlert[], nowMs: number): void {
    for (const alert of alerts) {
      this.subjects.set(alert.key, {
        kind: alert.kind,
        scope: alert.scope,
        phase: "open",
        badSince: alert.openedAt,
        goodSince: null,
        lastObservedAt: nowMs,
      });
    }
  }

  /** Pending or open: rules use it for hysteresis (a wider band once an alert is on its way). */
  isActive(key: string): boolean {
    return this.subjects.has(key);
  }

  isOpen(key: string): boolean {
    return this.subjects.get(key)?.phase === "open";
  }

  /**
   * One observation: `conditions` are the subjects found bad at `nowMs`;
   * every tracked subject whose scope is in `observed` but that is not
   * among them was found good.
   */
  step(nowMs: number, conditions: readonly Condition[], observed: ReadonlySet<string>): EngineStep {
    const opened: OpenedAlert[] = [];
    const closed: ClosedAlert[] = [];
    const bad = new Set<string>();

    for (const condition of conditions) {
      if (bad.has(condition.key)) continue;
      bad.add(condition.key);
      let subject = this.subjects.get(condition.key);
      if (!subject) {
        subject = { kind: condition.kind, scope: condition.scope, phase: "pending", badSince: nowMs, goodSince: null, lastObservedAt: nowMs };
        this.subjects.set(condition.key, subject);
      }
      subject.goodSince = null;
      subject.lastObservedAt = nowMs;
      if (subject.phase === "pending" && nowMs - subject.badSince >= this.timing(subject.kind).holdMs) {
        subject.phase = "open";
        opened.push({ condition, openedAt: nowMs, since: subject.badSince });
      }
    }

    for (const [key, subject] of this.subjects) {
      if (bad.has(key)) continue;
      if (!observed.has(subject.scope)) {
        if (nowMs - subject.lastObservedAt >= this.staleMs) {
          this.subjects.delete(key);
          if (subject.phase === "open") closed.push({ key, kind: subject.kind, closedAt: nowMs, reason: "not observed" });
        }
        continue;
      }
      subject.lastObservedAt = nowMs;
      subject.goodSince ??= nowMs;
      const good = nowMs - subject.goodSince;
      const { holdMs, clearMs } = this.timing(subject.kind);
      if (subject.phase === "pending") {
        if (good >= Math.min(clearMs, holdMs / 4)) this.subjects.delete(key);
      } else if (good >= clearMs) {
        this.subjects.delete(key);
        closed.push({ key, kind: subject.kind, closedAt: nowMs, reason: "cleared" });
      }
    }
    return { opened, closed };
  }
}
