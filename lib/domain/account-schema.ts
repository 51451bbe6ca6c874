import * as z from "zod";
import { text } from "@/lib/domain/plain-text";
import { isTimeZone } from "@/lib/format/local-time";

/** PATCH /api/v1/me: the person's own settings. `timeZone` null: the browser's zone. */
export const updateMeSchema = z
  .object({
    timeZone: text().max(64).refine(isTimeZone, "is not a time zone this server knows").nullable(),
  })
  .strict();

export type UpdateMe = z.infer<typeof updateMeSchema>;
