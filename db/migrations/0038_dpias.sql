CREATE TABLE "dpias" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"processing_activity_id" uuid NOT NULL,
	"criteria_met" text[] DEFAULT '{}'::text[] NOT NULL,
	"required_override" text,
	"override_reason" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"necessity_and_proportionality" text DEFAULT '' NOT NULL,
	"risks_to_data_subjects" text DEFAULT '' NOT NULL,
	"measures" text DEFAULT '' NOT NULL,
	"residual_risk" text,
	"residual_judgement" text DEFAULT '' NOT NULL,
	"dpo_advice" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"signed_off_by_id" uuid,
	"signed_off_at" timestamp with time zone,
	"risk_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dpias_required_override_check" CHECK ("dpias"."required_override" in ('required', 'not_required')),
	CONSTRAINT "dpias_residual_risk_check" CHECK ("dpias"."residual_risk" in ('low', 'medium', 'high')),
	CONSTRAINT "dpias_status_check" CHECK ("dpias"."status" in ('draft', 'signed_off'))
);
--> statement-breakpoint
ALTER TABLE "dpias" ADD CONSTRAINT "dpias_processing_activity_id_processing_activities_id_fk" FOREIGN KEY ("processing_activity_id") REFERENCES "public"."processing_activities"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dpias" ADD CONSTRAINT "dpias_signed_off_by_id_users_id_fk" FOREIGN KEY ("signed_off_by_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dpias" ADD CONSTRAINT "dpias_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dpias" ADD CONSTRAINT "dpias_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dpias_created_idx" ON "dpias" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "dpias_owner_idx" ON "dpias" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "dpias_owner_group_idx" ON "dpias" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "dpias_processing_activity_idx" ON "dpias" USING btree ("processing_activity_id");--> statement-breakpoint
CREATE INDEX "dpias_status_idx" ON "dpias" USING btree ("status");--> statement-breakpoint
SELECT grc_count_rows('dpias');
--> statement-breakpoint
SELECT grc_make_searchable('dpias', 'name', 'description');
