CREATE TABLE "audit_findings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"audit_plan_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"deadline" date,
	"control_id" uuid,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_findings_status_check" CHECK ("audit_findings"."status" in ('open', 'in_remediation', 'closed'))
);
--> statement-breakpoint
CREATE TABLE "audit_plans" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"scope" text DEFAULT '' NOT NULL,
	"period_start" date,
	"period_end" date,
	"status" text DEFAULT 'planned' NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_plans_status_check" CHECK ("audit_plans"."status" in ('planned', 'in_progress', 'completed')),
	CONSTRAINT "audit_plans_period_check" CHECK ("audit_plans"."period_end" >= "audit_plans"."period_start")
);
--> statement-breakpoint
ALTER TABLE "audit_findings" ADD CONSTRAINT "audit_findings_audit_plan_id_audit_plans_id_fk" FOREIGN KEY ("audit_plan_id") REFERENCES "public"."audit_plans"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_findings" ADD CONSTRAINT "audit_findings_control_id_controls_id_fk" FOREIGN KEY ("control_id") REFERENCES "public"."controls"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_findings" ADD CONSTRAINT "audit_findings_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_findings" ADD CONSTRAINT "audit_findings_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_plans" ADD CONSTRAINT "audit_plans_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_plans" ADD CONSTRAINT "audit_plans_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_findings_created_idx" ON "audit_findings" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "audit_findings_plan_idx" ON "audit_findings" USING btree ("audit_plan_id");--> statement-breakpoint
CREATE INDEX "audit_findings_control_idx" ON "audit_findings" USING btree ("control_id");--> statement-breakpoint
CREATE INDEX "audit_findings_owner_idx" ON "audit_findings" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "audit_findings_owner_group_idx" ON "audit_findings" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "audit_findings_status_idx" ON "audit_findings" USING btree ("status");--> statement-breakpoint
CREATE INDEX "audit_plans_created_idx" ON "audit_plans" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "audit_plans_owner_idx" ON "audit_plans" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "audit_plans_owner_group_idx" ON "audit_plans" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "audit_plans_status_idx" ON "audit_plans" USING btree ("status");