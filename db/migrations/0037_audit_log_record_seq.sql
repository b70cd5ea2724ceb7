CREATE INDEX "audit_log_record_seq_idx" ON "audit_log" USING btree ("record_id","seq");
