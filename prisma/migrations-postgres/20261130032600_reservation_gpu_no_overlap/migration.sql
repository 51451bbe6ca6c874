-- Written by hand (Prisma's schema language cannot say it): the database itself
-- refuses two bookings of one GPU that share an instant, whatever the code does.
-- Each ReservationGpu row holds its GPU over ["startsAt", "endsAt"); releasing or
-- cancelling moves "endsAt" back, down to "startsAt" for a booking withdrawn before
-- it began, which is an empty range and overlaps nothing. GREATEST keeps a range
-- valid should "endsAt" ever lie before "startsAt".
-- btree_gist lets "gpuId" (text, compared with =) share a GiST index with the range;
-- it is a trusted extension: a database owner may create it without superuser rights.
CREATE EXTENSION IF NOT EXISTS btree_gist;

ALTER TABLE "ReservationGpu" ADD CONSTRAINT "ReservationGpu_no_overlap"
  EXCLUDE USING gist ("gpuId" WITH =, tsrange("startsAt", GREATEST("startsAt", "endsAt"), '[)') WITH &&);
