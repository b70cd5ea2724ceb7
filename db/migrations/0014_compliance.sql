CREATE TABLE "compliance_analysis_controls" (
	"analysis_id" uuid NOT NULL,
	"control_id" uuid NOT NULL,
	CONSTRAINT "compliance_analysis_controls_analysis_id_control_id_pk" PRIMARY KEY("analysis_id","control_id")
);
--> statement-breakpoint
CREATE TABLE "compliance_analysis_policies" (
	"analysis_id" uuid NOT NULL,
	"policy_id" uuid NOT NULL,
	CONSTRAINT "compliance_analysis_policies_analysis_id_policy_id_pk" PRIMARY KEY("analysis_id","policy_id")
);
--> statement-breakpoint
CREATE TABLE "compliance_analysis_projects" (
	"analysis_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	CONSTRAINT "compliance_analysis_projects_analysis_id_project_id_pk" PRIMARY KEY("analysis_id","project_id")
);
--> statement-breakpoint
CREATE TABLE "compliance_analysis_risks" (
	"analysis_id" uuid NOT NULL,
	"risk_id" uuid NOT NULL,
	CONSTRAINT "compliance_analysis_risks_analysis_id_risk_id_pk" PRIMARY KEY("analysis_id","risk_id")
);
--> statement-breakpoint
CREATE TABLE "compliance_analyses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"package_id" uuid NOT NULL,
	"item_id" uuid NOT NULL,
	"status" text DEFAULT 'not_assessed' NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"assessor_id" uuid,
	"assessed_at" timestamp with time zone,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "compliance_analyses_status_check" CHECK ("compliance_analyses"."status" in ('not_assessed', 'compliant', 'partially_compliant', 'non_compliant', 'not_applicable'))
);
--> statement-breakpoint
CREATE TABLE "compliance_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"package_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"parent_code" text,
	"kind" text DEFAULT 'requirement' NOT NULL,
	CONSTRAINT "compliance_items_kind_check" CHECK ("compliance_items"."kind" in ('requirement', 'additional', 'heading')),
	CONSTRAINT "compliance_items_code_length_check" CHECK (char_length("compliance_items"."code") between 1 and 100),
	CONSTRAINT "compliance_items_name_length_check" CHECK (char_length("compliance_items"."name") between 1 and 300)
);
--> statement-breakpoint
CREATE TABLE "compliance_packages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"standard" text DEFAULT '' NOT NULL,
	"version" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "compliance_analysis_controls" ADD CONSTRAINT "compliance_analysis_controls_analysis_id_compliance_analyses_id_fk" FOREIGN KEY ("analysis_id") REFERENCES "public"."compliance_analyses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analysis_controls" ADD CONSTRAINT "compliance_analysis_controls_control_id_controls_id_fk" FOREIGN KEY ("control_id") REFERENCES "public"."controls"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analysis_policies" ADD CONSTRAINT "compliance_analysis_policies_analysis_id_compliance_analyses_id_fk" FOREIGN KEY ("analysis_id") REFERENCES "public"."compliance_analyses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analysis_policies" ADD CONSTRAINT "compliance_analysis_policies_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analysis_projects" ADD CONSTRAINT "compliance_analysis_projects_analysis_id_compliance_analyses_id_fk" FOREIGN KEY ("analysis_id") REFERENCES "public"."compliance_analyses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analysis_projects" ADD CONSTRAINT "compliance_analysis_projects_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analysis_risks" ADD CONSTRAINT "compliance_analysis_risks_analysis_id_compliance_analyses_id_fk" FOREIGN KEY ("analysis_id") REFERENCES "public"."compliance_analyses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analysis_risks" ADD CONSTRAINT "compliance_analysis_risks_risk_id_risks_id_fk" FOREIGN KEY ("risk_id") REFERENCES "public"."risks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analyses" ADD CONSTRAINT "compliance_analyses_package_id_compliance_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."compliance_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analyses" ADD CONSTRAINT "compliance_analyses_item_id_compliance_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."compliance_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analyses" ADD CONSTRAINT "compliance_analyses_assessor_id_users_id_fk" FOREIGN KEY ("assessor_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analyses" ADD CONSTRAINT "compliance_analyses_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_analyses" ADD CONSTRAINT "compliance_analyses_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_items" ADD CONSTRAINT "compliance_items_package_id_compliance_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."compliance_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_packages" ADD CONSTRAINT "compliance_packages_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_packages" ADD CONSTRAINT "compliance_packages_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_packages" ADD CONSTRAINT "compliance_packages_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "compliance_analysis_controls_control_idx" ON "compliance_analysis_controls" USING btree ("control_id");--> statement-breakpoint
CREATE INDEX "compliance_analysis_policies_policy_idx" ON "compliance_analysis_policies" USING btree ("policy_id");--> statement-breakpoint
CREATE INDEX "compliance_analysis_projects_project_idx" ON "compliance_analysis_projects" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "compliance_analysis_risks_risk_idx" ON "compliance_analysis_risks" USING btree ("risk_id");--> statement-breakpoint
CREATE UNIQUE INDEX "compliance_analyses_item_key" ON "compliance_analyses" USING btree ("item_id");--> statement-breakpoint
CREATE INDEX "compliance_analyses_package_idx" ON "compliance_analyses" USING btree ("package_id","status");--> statement-breakpoint
CREATE INDEX "compliance_analyses_owner_idx" ON "compliance_analyses" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "compliance_analyses_owner_group_idx" ON "compliance_analyses" USING btree ("owner_group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "compliance_items_package_code_key" ON "compliance_items" USING btree ("package_id","code");--> statement-breakpoint
CREATE INDEX "compliance_items_package_position_idx" ON "compliance_items" USING btree ("package_id","position");--> statement-breakpoint
CREATE INDEX "compliance_packages_created_idx" ON "compliance_packages" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "compliance_packages_owner_idx" ON "compliance_packages" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "compliance_packages_owner_group_idx" ON "compliance_packages" USING btree ("owner_group_id");