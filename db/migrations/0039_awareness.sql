CREATE TABLE "awareness_programs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"content_url" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"audience_group_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"audience_user_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"starts_on" date,
	"ends_on" date,
	"pass_mark" integer DEFAULT 80 NOT NULL,
	"questions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "awareness_programs_status_check" CHECK ("awareness_programs"."status" in ('draft', 'published')),
	CONSTRAINT "awareness_programs_pass_mark_check" CHECK ("awareness_programs"."pass_mark" between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE "awareness_results" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"program_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"status" text DEFAULT 'assigned' NOT NULL,
	"score" integer,
	"attempts" integer DEFAULT 0 NOT NULL,
	"answers" jsonb,
	"assigned_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "awareness_results_status_check" CHECK ("awareness_results"."status" in ('assigned', 'started', 'passed', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "awareness_programs" ADD CONSTRAINT "awareness_programs_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "awareness_programs" ADD CONSTRAINT "awareness_programs_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "awareness_results" ADD CONSTRAINT "awareness_results_program_id_awareness_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."awareness_programs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "awareness_results" ADD CONSTRAINT "awareness_results_person_id_users_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "awareness_programs_created_idx" ON "awareness_programs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "awareness_programs_owner_idx" ON "awareness_programs" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "awareness_programs_owner_group_idx" ON "awareness_programs" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "awareness_programs_status_idx" ON "awareness_programs" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "awareness_results_person_uq" ON "awareness_results" USING btree ("program_id","person_id");--> statement-breakpoint
CREATE INDEX "awareness_results_person_idx" ON "awareness_results" USING btree ("person_id");--> statement-breakpoint
SELECT grc_count_rows('awareness_programs');
