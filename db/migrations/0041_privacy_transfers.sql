CREATE TABLE "asset_data_maps" (
	"asset_id" uuid PRIMARY KEY NOT NULL,
	"personal_data_held" boolean DEFAULT false NOT NULL,
	"data_categories" text[] DEFAULT '{}'::text[] NOT NULL,
	"location_country" text,
	"retention" text DEFAULT '' NOT NULL,
	"hosting" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "asset_data_maps_country_check" CHECK ("asset_data_maps"."location_country" ~ '^[A-Z]{2}$'),
	CONSTRAINT "asset_data_maps_hosting_check" CHECK ("asset_data_maps"."hosting" in ('on_premises', 'private_cloud', 'public_cloud', 'saas'))
);
--> statement-breakpoint
CREATE TABLE "privacy_transfers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"processing_activity_id" uuid NOT NULL,
	"destination_country" text NOT NULL,
	"recipient_third_party_id" uuid NOT NULL,
	"safeguard" text NOT NULL,
	"scc_module" integer,
	"derogation" text,
	"transfer_impact_assessment_id" uuid,
	"notes" text DEFAULT '' NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "privacy_transfers_country_check" CHECK ("privacy_transfers"."destination_country" ~ '^[A-Z]{2}$'),
	CONSTRAINT "privacy_transfers_safeguard_check" CHECK ("privacy_transfers"."safeguard" in ('adequacy_decision', 'sccs', 'bcrs', 'derogation')),
	CONSTRAINT "privacy_transfers_scc_module_check" CHECK (("privacy_transfers"."safeguard" = 'sccs') = ("privacy_transfers"."scc_module" is not null) and ("privacy_transfers"."scc_module" is null or "privacy_transfers"."scc_module" between 1 and 4)),
	CONSTRAINT "privacy_transfers_derogation_check" CHECK (("privacy_transfers"."safeguard" = 'derogation') = ("privacy_transfers"."derogation" is not null))
);
--> statement-breakpoint
CREATE TABLE "third_party_dpas" (
	"third_party_id" uuid PRIMARY KEY NOT NULL,
	"signed_on" date,
	"version" text DEFAULT '' NOT NULL,
	"sub_processor_countries" text[] DEFAULT '{}'::text[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "transfer_impact_assessments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"third_party_id" uuid NOT NULL,
	"laws_assessed" text DEFAULT '' NOT NULL,
	"risk_found" text NOT NULL,
	"supplementary_measures" text DEFAULT '' NOT NULL,
	"conclusion" text NOT NULL,
	"assessed_on" date NOT NULL,
	"next_review_on" date,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "transfer_impact_assessments_risk_check" CHECK ("transfer_impact_assessments"."risk_found" in ('low', 'medium', 'high')),
	CONSTRAINT "transfer_impact_assessments_conclusion_check" CHECK ("transfer_impact_assessments"."conclusion" in ('proceed', 'proceed_with_measures', 'do_not_proceed')),
	CONSTRAINT "transfer_impact_assessments_review_check" CHECK ("transfer_impact_assessments"."next_review_on" is null or "transfer_impact_assessments"."next_review_on" > "transfer_impact_assessments"."assessed_on")
);
--> statement-breakpoint
ALTER TABLE "asset_data_maps" ADD CONSTRAINT "asset_data_maps_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_transfers" ADD CONSTRAINT "privacy_transfers_processing_activity_id_processing_activities_id_fk" FOREIGN KEY ("processing_activity_id") REFERENCES "public"."processing_activities"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_transfers" ADD CONSTRAINT "privacy_transfers_recipient_third_party_id_third_parties_id_fk" FOREIGN KEY ("recipient_third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_transfers" ADD CONSTRAINT "privacy_transfers_transfer_impact_assessment_id_transfer_impact_assessments_id_fk" FOREIGN KEY ("transfer_impact_assessment_id") REFERENCES "public"."transfer_impact_assessments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_transfers" ADD CONSTRAINT "privacy_transfers_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "privacy_transfers" ADD CONSTRAINT "privacy_transfers_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "third_party_dpas" ADD CONSTRAINT "third_party_dpas_third_party_id_third_parties_id_fk" FOREIGN KEY ("third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_impact_assessments" ADD CONSTRAINT "transfer_impact_assessments_third_party_id_third_parties_id_fk" FOREIGN KEY ("third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_impact_assessments" ADD CONSTRAINT "transfer_impact_assessments_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "transfer_impact_assessments" ADD CONSTRAINT "transfer_impact_assessments_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "privacy_transfers_created_idx" ON "privacy_transfers" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "privacy_transfers_owner_idx" ON "privacy_transfers" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "privacy_transfers_owner_group_idx" ON "privacy_transfers" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "privacy_transfers_activity_idx" ON "privacy_transfers" USING btree ("processing_activity_id");--> statement-breakpoint
CREATE INDEX "privacy_transfers_recipient_idx" ON "privacy_transfers" USING btree ("recipient_third_party_id");--> statement-breakpoint
CREATE INDEX "privacy_transfers_tia_idx" ON "privacy_transfers" USING btree ("transfer_impact_assessment_id");--> statement-breakpoint
CREATE INDEX "transfer_impact_assessments_created_idx" ON "transfer_impact_assessments" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "transfer_impact_assessments_owner_idx" ON "transfer_impact_assessments" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "transfer_impact_assessments_owner_group_idx" ON "transfer_impact_assessments" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "transfer_impact_assessments_third_party_idx" ON "transfer_impact_assessments" USING btree ("third_party_id");--> statement-breakpoint
CREATE INDEX "transfer_impact_assessments_next_review_idx" ON "transfer_impact_assessments" USING btree ("next_review_on");--> statement-breakpoint
SELECT grc_count_rows('privacy_transfers');
--> statement-breakpoint
SELECT grc_count_rows('transfer_impact_assessments');
