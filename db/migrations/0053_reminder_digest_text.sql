-- The reminder sweep renders each person's digest when it collects the day, into the ledger row that already says
-- whether it was queued (docs/notifications.md, "The daily reminder sweep"); queuing copies the text to the outbox and
-- drops it from the ledger. The per-kind lists it rendered from before are gone.
ALTER TABLE "reminder_digests" ADD COLUMN "subject" text;--> statement-breakpoint
ALTER TABLE "reminder_digests" ADD COLUMN "body" text;--> statement-breakpoint
-- Digests of a day collected by the previous version and not queued yet have no text to copy: they are dropped, so that
-- day finishes without them (nobody gets a day twice; the next day's digests list everything still due).
DELETE FROM "reminder_digests" WHERE "outbox_id" IS NULL;--> statement-breakpoint
DROP TABLE "reminder_lists";
