CREATE TABLE "evidence" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"kind" text DEFAULT 'evidence' NOT NULL,
	"third_party_id" uuid,
	"collected_on" date NOT NULL,
	"valid_until" date,
	"locked" boolean DEFAULT false NOT NULL,
	"locked_at" timestamp with time zone,
	"locked_by" uuid,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evidence_kind_check" CHECK ("evidence"."kind" in ('evidence', 'vendor_report')),
	CONSTRAINT "evidence_vendor_report_check" CHECK ("evidence"."kind" <> 'vendor_report' or "evidence"."third_party_id" is not null),
	CONSTRAINT "evidence_valid_until_check" CHECK ("evidence"."valid_until" is null or "evidence"."valid_until" >= "evidence"."collected_on")
);
--> statement-breakpoint
CREATE TABLE "evidence_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"evidence_id" uuid NOT NULL,
	"name" text NOT NULL,
	"storage_key" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"crc32" bigint NOT NULL,
	"content_type" text NOT NULL,
	"uploaded_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evidence_files_sha256_check" CHECK ("evidence_files"."sha256" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
CREATE TABLE "evidence_links" (
	"evidence_id" uuid NOT NULL,
	"record_type" text NOT NULL,
	"record_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "evidence_links_evidence_id_record_type_record_id_pk" PRIMARY KEY("evidence_id","record_type","record_id")
);
--> statement-breakpoint
CREATE TABLE "evidence_verify_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"started_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"total" integer DEFAULT 0 NOT NULL,
	"checked" integer DEFAULT 0 NOT NULL,
	"problems" text DEFAULT '[]' NOT NULL,
	CONSTRAINT "evidence_verify_runs_status_check" CHECK ("evidence_verify_runs"."status" in ('running', 'finished', 'interrupted'))
);
--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_third_party_id_third_parties_id_fk" FOREIGN KEY ("third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_locked_by_users_id_fk" FOREIGN KEY ("locked_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence" ADD CONSTRAINT "evidence_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence_files" ADD CONSTRAINT "evidence_files_evidence_id_evidence_id_fk" FOREIGN KEY ("evidence_id") REFERENCES "public"."evidence"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence_files" ADD CONSTRAINT "evidence_files_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence_links" ADD CONSTRAINT "evidence_links_evidence_id_evidence_id_fk" FOREIGN KEY ("evidence_id") REFERENCES "public"."evidence"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "evidence_verify_runs" ADD CONSTRAINT "evidence_verify_runs_started_by_users_id_fk" FOREIGN KEY ("started_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "evidence_created_idx" ON "evidence" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "evidence_owner_idx" ON "evidence" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "evidence_owner_group_idx" ON "evidence" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "evidence_valid_until_idx" ON "evidence" USING btree ("valid_until");--> statement-breakpoint
CREATE INDEX "evidence_third_party_idx" ON "evidence" USING btree ("third_party_id");--> statement-breakpoint
CREATE UNIQUE INDEX "evidence_files_storage_key" ON "evidence_files" USING btree ("storage_key");--> statement-breakpoint
CREATE INDEX "evidence_files_evidence_idx" ON "evidence_files" USING btree ("evidence_id","created_at");--> statement-breakpoint
CREATE INDEX "evidence_links_record_idx" ON "evidence_links" USING btree ("record_type","record_id");--> statement-breakpoint
CREATE UNIQUE INDEX "evidence_verify_runs_one_running" ON "evidence_verify_runs" USING btree ("status") WHERE "evidence_verify_runs"."status" = 'running';--> statement-breakpoint
-- Exact list totals for evidence, like the other registers (0018_row_count_triggers.sql); the table is new and empty.
CREATE TRIGGER evidence_count_inserts AFTER INSERT ON evidence REFERENCING NEW TABLE AS inserted_rows
  FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_insert();--> statement-breakpoint
CREATE TRIGGER evidence_count_deletes AFTER DELETE ON evidence REFERENCING OLD TABLE AS deleted_rows
  FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_delete();--> statement-breakpoint
CREATE TRIGGER evidence_count_truncate AFTER TRUNCATE ON evidence
  FOR EACH STATEMENT EXECUTE FUNCTION row_counts_after_truncate();
