-- One meaning per word: the booking's person is bookedBy, who really ran there is the runner
-- (the columns were holderUserId and attributedUserId). Renamed in place: no row is rewritten.
ALTER TABLE "GpuMinute" RENAME COLUMN "holderUserId" TO "bookedByUserId";
ALTER TABLE "GpuMinute" RENAME COLUMN "attributedUserId" TO "runnerUserId";
ALTER TABLE "GpuHour" RENAME COLUMN "holderUserId" TO "bookedByUserId";
ALTER TABLE "GpuHour" RENAME COLUMN "attributedUserId" TO "runnerUserId";
