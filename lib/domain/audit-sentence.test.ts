import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AUDIT_ACTION_LABELS, type AuditEntryView, type KnownAuditAction } from "@/lib/domain/audit";
import { auditSentence } from "@/lib/domain/audit-sentence";
import { ENFORCEMENT_ACTIONS } from "@/lib/domain/enforcement-protocol";
import { formatWhen } from "@/lib/format/local-time";

const NOW = Date.parse("2026-12-05T12:00:00Z");
const time = (iso: string) => formatWhen(iso, NOW, { timeZone: "UTC" });
const ISO = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

const serverDir = path.join(__dirname, "..", "..", "server");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
    const full = path.join(dir, item.name);
    if (item.isDirectory()) return item.name === "testing" ? [] : sourceFiles(full);
    return item.name.endsWith(".ts") && !item.name.endsWith(".test.ts") ? [full] : [];
  });
}

/**
 * Every action the server writes: the quoted "kind.what" strings on the lines
 * naming an action in each file that writes the audit log, and enforcement's
 * `enforcement.${report.action}`.
 */
function writtenActions(): string[] {
  const kinds = "reservation|policy|user|token|host_setting|host|display|webhook|alert|waitlist|signin|team|limits|limit|enforcement";
  const literal = new RegExp(`"((?:${kinds})\\.[a-z_]+(?:\\.[a-z_]+)?)"`, "g");
  const found = new Set<string>(ENFORCEMENT_ACTIONS.map((action) => `enforcement.${action}`));
  for (const file of sourceFiles(serverDir)) {
    const text = readFileSync(file, "utf8");
    if (!/writeAudit\(|recordAudit\(|recordHostAudit\(|auditLog\.create\(|recordSignInAudit\(/.test(text)) continue;
    for (const line of text.split("\n").filter((line) => /action|recordSignInAudit\(/.test(line))) {
      for (const match of line.matchAll(literal)) found.add(match[1]);
    }
  }
  return [...found].sort();
}

/** Shapes the entries take: as the server writes them, and with fields missing or null on either side. */
const SHAPES: { name: string; before: unknown; after: unknown }[] = [
  {
    name: "a booking snapshot changed",
    before: { startsAt: "2026-12-05T10:00:00.000Z", endsAt: "2026-12-05T14:00:00.000Z", status: "active", purpose: "training" },
    after: { startsAt: "2026-12-05T10:00:00.000Z", endsAt: "2026-12-05T16:00:00.000Z", status: "active", purpose: "training", reason: "deadline", releasedBecause: "idle", idleSince: "2026-12-05T11:00:00.000Z" },
  },
  { name: "only after, without gpus or host", before: null, after: { releasedBecause: "idle", idleSince: "2026-12-04T09:00:00.000Z", demo: true } },
  { name: "only before", before: { kind: "user", subjectId: "u1", reason: null }, after: null },
  { name: "nested and listed values", before: { limits: { gpus: 2 }, tags: [] }, after: { limits: { gpus: 4, hours: null }, tags: ["a", "b"], gpus: [{ index: 0, uuid: "GPU-1" }, { index: 1, uuid: "GPU-2", mig: { deviceIndex: 2, profile: "1g.10gb" } }] } },
  { name: "nothing", before: null, after: null },
];

function entry(action: string, shape: { before: unknown; after: unknown }, entityType = action.split(".")[0]): AuditEntryView {
  return { id: "e1", at: "2026-12-05T11:00:00.000Z", actor: null, action: action as AuditEntryView["action"], entityType, entityId: "x1", before: shape.before, after: shape.after, ip: null, via: "web" };
}

describe("every row of the audit log is a sentence", () => {
  const actions = writtenActions();

  it("finds the actions the server writes", () => {
    expect(actions).toContain("reservation.create");
    expect(actions).toContain("reservation.idle_release");
    expect(actions).toContain("enforcement.sigkill");
    expect(actions).toContain("signin.lockout");
    expect(actions.length).toBeGreaterThan(40);
  });

  it("has a label for every action the server writes", () => {
    const unlabelled = actions.filter((action) => !(action in AUDIT_ACTION_LABELS));
    expect(unlabelled).toEqual([]);
  });

  for (const action of [...new Set([...writtenActions(), ...Object.keys(AUDIT_ACTION_LABELS)])]) {
    it(`renders ${action} in words and the one time format, whatever the fields`, () => {
      for (const shape of SHAPES) {
        const sentence = auditSentence(entry(action, shape), time);
        expect(sentence, `${action}, ${shape.name}`).not.toMatch(/undefined|\[object Object\]|NaN/);
        expect(sentence, `${action}, ${shape.name}`).not.toMatch(ISO);
        expect(sentence, `${action}, ${shape.name}`).toMatch(/^[A-Z].*\.$/);
        expect(sentence.startsWith(AUDIT_ACTION_LABELS[action as KnownAuditAction] ?? "")).toBe(true);
      }
    });
  }

  it("says a booking as made: host, GPUs, times and purpose", () => {
    const made = entry("reservation.create", {
      before: null,
      after: { host: "node-a", gpus: [{ index: 0, uuid: "GPU-a" }, { index: 3, uuid: "GPU-b" }], startsAt: "2026-12-05T14:00:00.000Z", endsAt: "2026-12-06T02:00:00.000Z", purpose: "llama run", status: "booked" },
    });
    expect(auditSentence(made, time)).toBe("Booked: node-a GPU 0, 3 from today 14:00 to tomorrow 02:00 for “llama run”.");
  });

  it("names a MIG slice as every surface does", () => {
    const made = entry("reservation.create", {
      before: null,
      after: { host: "migbox", gpus: [{ index: 0, uuid: "MIG-a", mig: { deviceIndex: 2, profile: "1g.10gb" }, unit: "GPU 0:2 (1g.10gb)" }], startsAt: "2026-12-05T14:00:00.000Z", endsAt: "2026-12-05T16:00:00.000Z", purpose: "slice", status: "booked" },
    });
    expect(auditSentence(made, time)).toBe("Booked: migbox GPU 0:2 (1g.10gb) from today 14:00 to today 16:00 for “slice”.");
  });

  it("says a demo idle release without inventing a booking or an earlier value", () => {
    const demo = entry("reservation.idle_release", { before: null, after: { releasedBecause: "idle", idleSince: "2026-12-05T09:30:00.000Z", demo: true } });
    expect(auditSentence(demo, time)).toBe("Released for idleness: released because idle; idle since today 09:30; demo yes.");
  });

  it("says an ended booking's changed end and the reason given", () => {
    const cancelled = entry("reservation.cancel", {
      before: { startsAt: "2026-12-05T10:00:00.000Z", endsAt: "2026-12-05T18:00:00.000Z", status: "active", purpose: "x" },
      after: { startsAt: "2026-12-05T10:00:00.000Z", endsAt: "2026-12-05T12:00:00.000Z", status: "cancelled", purpose: "x", reason: "maintenance" },
    });
    expect(auditSentence(cancelled, time)).toBe("Cancelled: ends at today 18:00 → today 12:00; status active → cancelled; reason: maintenance.");
  });

  it("says several whole GPUs in one phrase, as every surface does (it read 'GPU 0, GPU 1, GPU 2')", () => {
    const made = entry("reservation.create", {
      before: null,
      after: { host: "node-a", gpus: [0, 1, 2].map((index) => ({ index, uuid: `GPU-${index}`, unit: `GPU ${index}` })), startsAt: "2026-12-05T14:00:00.000Z", endsAt: "2026-12-05T16:00:00.000Z", purpose: "run", status: "booked" },
    });
    expect(auditSentence(made, time)).toBe("Booked: node-a GPUs 0, 1, 2 from today 14:00 to today 16:00 for “run”.");
  });

  it("says which booking a release changed, its units by name", () => {
    const released = entry("reservation.release", {
      before: { booking: "migbox GPU 0:2 (1g.10gb)", startsAt: "2026-12-05T10:00:00.000Z", endsAt: "2026-12-05T18:00:00.000Z", status: "booked", purpose: "x" },
      after: { booking: "migbox GPU 0:2 (1g.10gb)", startsAt: "2026-12-05T10:00:00.000Z", endsAt: "2026-12-05T12:00:00.000Z", status: "released", purpose: "x" },
    });
    expect(auditSentence(released, time)).toBe("Released: migbox GPU 0:2 (1g.10gb); ends at today 18:00 → today 12:00; status booked → released.");
  });

  it("names the units a booking was made over running work on (it said 'booked over running work 0')", () => {
    const made = entry("reservation.create", {
      before: null,
      after: {
        host: "migbox",
        gpus: [{ index: 0, uuid: "MIG-a", mig: { deviceIndex: 0, profile: "3g.40gb" }, unit: "GPU 0:0 (3g.40gb)" }],
        startsAt: "2026-12-05T14:00:00.000Z",
        endsAt: "2026-12-05T16:00:00.000Z",
        purpose: "over it",
        status: "booked",
        bookedOverRunningWork: [{ index: 0, uuid: "MIG-a", unit: "GPU 0:0 (3g.40gb)", processes: [{ pid: 21198, owner: null, login: null, command: "./gpu_burn" }] }],
      },
    });
    expect(auditSentence(made, time)).toBe("Booked: migbox GPU 0:0 (3g.40gb) from today 14:00 to today 16:00 for “over it”; booked over running work on GPU 0:0 (3g.40gb).");
  });

  it("names a slice as the booking service writes it: its unit's name, no mig block", () => {
    // server/bookings/commands/create-booking.ts stores { index, uuid, unit } for each unit.
    const made = entry("reservation.create", {
      before: null,
      after: { host: "migbox", gpus: [{ index: 0, uuid: "MIG-a", unit: "GPU 0:0 (3g.40gb)" }, { index: 0, uuid: "MIG-b", unit: "GPU 0:2 (1g.10gb)" }], startsAt: "2026-12-05T14:00:00.000Z", endsAt: "2026-12-05T16:00:00.000Z", purpose: "two slices", status: "booked" },
    });
    expect(auditSentence(made, time)).toContain("Booked: migbox GPU 0:0 (3g.40gb), GPU 0:2 (1g.10gb) from");
    const whole = entry("reservation.create", {
      before: null,
      after: { host: "node-a", gpus: [0, 1, 2].map((index) => ({ index, uuid: `GPU-${index}`, unit: `GPU ${index}` })), startsAt: "2026-12-05T14:00:00.000Z", endsAt: "2026-12-05T16:00:00.000Z", purpose: "three", status: "booked" },
    });
    expect(auditSentence(whole, time)).toContain("Booked: node-a GPUs 0, 1, 2 from");
  });
});
