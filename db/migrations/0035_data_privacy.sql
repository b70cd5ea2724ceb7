CREATE TABLE "processing_activities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"role" text DEFAULT 'controller' NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"purposes" text DEFAULT '' NOT NULL,
	"legal_basis" text NOT NULL,
	"special_category_condition" text,
	"data_subject_categories" text[] DEFAULT '{}'::text[] NOT NULL,
	"personal_data_categories" text[] DEFAULT '{}'::text[] NOT NULL,
	"recipients" text DEFAULT '' NOT NULL,
	"retention" text DEFAULT '' NOT NULL,
	"system_asset_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"processor_third_party_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"joint_controllers" text DEFAULT '' NOT NULL,
	"security_measures" text DEFAULT '' NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "processing_activities_role_check" CHECK ("processing_activities"."role" in ('controller', 'processor')),
	CONSTRAINT "processing_activities_status_check" CHECK ("processing_activities"."status" in ('draft', 'active', 'retired')),
	CONSTRAINT "processing_activities_legal_basis_check" CHECK ("processing_activities"."legal_basis" in ('consent', 'contract', 'legal_obligation', 'vital_interests', 'public_task', 'legitimate_interests'))
);
--> statement-breakpoint
ALTER TABLE "custom_field_definitions" DROP CONSTRAINT "custom_field_definitions_module_check";--> statement-breakpoint
ALTER TABLE "processing_activities" ADD CONSTRAINT "processing_activities_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "processing_activities" ADD CONSTRAINT "processing_activities_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "processing_activities_created_idx" ON "processing_activities" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "processing_activities_owner_idx" ON "processing_activities" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "processing_activities_owner_group_idx" ON "processing_activities" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "processing_activities_role_idx" ON "processing_activities" USING btree ("role","name");--> statement-breakpoint
CREATE INDEX "processing_activities_status_idx" ON "processing_activities" USING btree ("status");--> statement-breakpoint
ALTER TABLE "custom_field_definitions" ADD CONSTRAINT "custom_field_definitions_module_check" CHECK ("custom_field_definitions"."module" in ('risks', 'controls', 'policies', 'thirdParties', 'incidents', 'projects', 'evidence', 'dataPrivacy'));--> statement-breakpoint
SELECT grc_count_rows('processing_activities');
--> statement-breakpoint
SELECT grc_make_searchable('processing_activities', 'name', 'purposes');
