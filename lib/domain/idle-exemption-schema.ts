import * as z from "zod";
import { text } from "@/lib/domain/plain-text";

/** `POST /api/v1/idle-exemptions`: a host (by name), a person (by username) or one booking (by id). */
export const idleExemptionSchema = z.strictObject({
  kind: z.enum(["host", "person", "booking"]),
  subject: text().trim().min(1, "Name the host, person or booking").max(253, "At most 253 characters"),
  reason: text().trim().max(500, "At most 500 characters").optional(),
});

export type IdleExemptionInput = z.infer<typeof idleExemptionSchema>;

export const idleExemptionIdSchema = text().min(1).max(64, "Not an exemption id");

export interface IdleExemptionView {
  id: string;
  kind: "host" | "person" | "booking";
  subjectId: string;
  /** The host's name, the person's username or the booking's purpose. */
  label: string;
  reason: string | null;
  createdAt: string;
}

/** What report-only mode would have released: the admin's list to judge a policy by. */
export interface IdleReportEntry {
  reservationId: string;
  userId: string;
  username: string | null;
  hostName: string | null;
  gpuCount: number;
  idleSince: string;
  at: string;
  scheduledEndAt: string;
}

export interface IdleExemptionsAnswer {
  exemptions: IdleExemptionView[];
  wouldHaveReleased: IdleReportEntry[];
}
