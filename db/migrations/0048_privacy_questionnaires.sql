CREATE TABLE "privacy_questionnaires" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"processing_activity_id" uuid NOT NULL,
	"recipient_id" uuid NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"fields" text[] NOT NULL,
	"due_on" date,
	"status" text DEFAULT 'sent' NOT NULL,
	"answers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"answered_at" timestamp with time zone,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "privacy_questionnaires_status_check" CHECK ("privacy_questionnaires"."status" in ('sent', 'answered', 'closed')),
	CONSTRAINT "privacy_questionnaires_fields_check" CHECK (cardinality("privacy_questionnaires"."fields") > 0)
);
--> statement-breakpoint
ALTER TABLE "privacy_questionnaires" ADD CONSTRAINT "privacy_questionnaires_processing_activity_id_processing_activities_id_fk" FOREIGN KEY ("processing_activity_id") REFERENCES "public"."processing_activities"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_questionnaires" ADD CONSTRAINT "privacy_questionnaires_recipient_id_users_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_questionnaires" ADD CONSTRAINT "privacy_questionnaires_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_questionnaires" ADD CONSTRAINT "privacy_questionnaires_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "privacy_questionnaires_created_idx" ON "privacy_questionnaires" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "privacy_questionnaires_owner_idx" ON "privacy_questionnaires" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "privacy_questionnaires_owner_group_idx" ON "privacy_questionnaires" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "privacy_questionnaires_recipient_idx" ON "privacy_questionnaires" USING btree ("recipient_id","status");--> statement-breakpoint
CREATE INDEX "privacy_questionnaires_activity_idx" ON "privacy_questionnaires" USING btree ("processing_activity_id");--> statement-breakpoint
SELECT grc_make_searchable('privacy_questionnaires', 'title', 'message');
