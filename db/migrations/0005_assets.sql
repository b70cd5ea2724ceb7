-- Risks could name an asset or business unit before these registers existed; such ids point at nothing, so they are cleared before the foreign keys are added.
UPDATE "risks" SET "asset_id" = NULL WHERE "asset_id" IS NOT NULL;--> statement-breakpoint
UPDATE "risks" SET "business_unit_id" = NULL WHERE "business_unit_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE "assets" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"business_unit_id" uuid,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "business_units" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"parent_id" uuid,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_business_unit_id_business_units_id_fk" FOREIGN KEY ("business_unit_id") REFERENCES "public"."business_units"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_units" ADD CONSTRAINT "business_units_parent_id_business_units_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."business_units"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_units" ADD CONSTRAINT "business_units_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "business_units" ADD CONSTRAINT "business_units_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "assets_created_idx" ON "assets" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "assets_owner_idx" ON "assets" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "assets_owner_group_idx" ON "assets" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "assets_business_unit_idx" ON "assets" USING btree ("business_unit_id");--> statement-breakpoint
CREATE UNIQUE INDEX "business_units_sibling_name_idx" ON "business_units" USING btree (coalesce("parent_id", '00000000-0000-0000-0000-000000000000'::uuid),lower("name"));--> statement-breakpoint
CREATE INDEX "business_units_parent_idx" ON "business_units" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "business_units_created_idx" ON "business_units" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "business_units_owner_idx" ON "business_units" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "business_units_owner_group_idx" ON "business_units" USING btree ("owner_group_id");--> statement-breakpoint
ALTER TABLE "risks" ADD CONSTRAINT "risks_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risks" ADD CONSTRAINT "risks_business_unit_id_business_units_id_fk" FOREIGN KEY ("business_unit_id") REFERENCES "public"."business_units"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "risks_asset_idx" ON "risks" USING btree ("asset_id");--> statement-breakpoint
CREATE INDEX "risks_business_unit_idx" ON "risks" USING btree ("business_unit_id");