DROP INDEX "history_record_idx";--> statement-breakpoint
CREATE INDEX "history_type_at_idx" ON "history" USING btree ("record_type","at");--> statement-breakpoint
CREATE INDEX "history_record_idx" ON "history" USING btree ("record_type","record_id","at","id");