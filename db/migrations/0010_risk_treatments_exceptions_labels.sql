CREATE TABLE "risk_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"risk_id" uuid NOT NULL,
	"reviewer_id" uuid,
	"reviewed_on" date NOT NULL,
	"outcome" text NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "risk_reviews_outcome_check" CHECK ("risk_reviews"."outcome" in ('no_change', 'changed', 'escalated'))
);
--> statement-breakpoint
CREATE TABLE "risk_treatments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"risk_id" uuid NOT NULL,
	"type" text NOT NULL,
	"status" text DEFAULT 'planned' NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"due_on" date,
	"residual_likelihood" integer,
	"residual_impact" integer,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "risk_treatments_type_check" CHECK ("risk_treatments"."type" in ('mitigate', 'accept', 'transfer', 'avoid')),
	CONSTRAINT "risk_treatments_status_check" CHECK ("risk_treatments"."status" in ('planned', 'implemented')),
	CONSTRAINT "risk_treatments_residual_pair_check" CHECK (("risk_treatments"."residual_likelihood" is null) = ("risk_treatments"."residual_impact" is null)),
	CONSTRAINT "risk_treatments_residual_mitigate_check" CHECK ("risk_treatments"."residual_likelihood" is null or "risk_treatments"."type" = 'mitigate')
);
--> statement-breakpoint
CREATE TABLE "treatment_controls" (
	"treatment_id" uuid NOT NULL,
	"control_id" uuid NOT NULL,
	CONSTRAINT "treatment_controls_treatment_id_control_id_pk" PRIMARY KEY("treatment_id","control_id")
);
--> statement-breakpoint
CREATE TABLE "exceptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"parent_type" text NOT NULL,
	"risk_id" uuid,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"status" text DEFAULT 'requested' NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"approver_id" uuid,
	"expires_at" date NOT NULL,
	"decided_at" timestamp with time zone,
	"decision_note" text DEFAULT '' NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "exceptions_status_check" CHECK ("exceptions"."status" in ('requested', 'approved', 'rejected')),
	CONSTRAINT "exceptions_risk_parent_check" CHECK (("exceptions"."parent_type" = 'risk') = ("exceptions"."risk_id" is not null))
);
--> statement-breakpoint
CREATE TABLE "labels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"color" text DEFAULT '#888888' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "labels_color_check" CHECK ("labels"."color" ~ '^#[0-9a-fA-F]{6}$')
);
--> statement-breakpoint
ALTER TABLE "risk_reviews" ADD CONSTRAINT "risk_reviews_risk_id_risks_id_fk" FOREIGN KEY ("risk_id") REFERENCES "public"."risks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risk_reviews" ADD CONSTRAINT "risk_reviews_reviewer_id_users_id_fk" FOREIGN KEY ("reviewer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risk_treatments" ADD CONSTRAINT "risk_treatments_risk_id_risks_id_fk" FOREIGN KEY ("risk_id") REFERENCES "public"."risks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risk_treatments" ADD CONSTRAINT "risk_treatments_residual_likelihood_risk_likelihood_levels_value_fk" FOREIGN KEY ("residual_likelihood") REFERENCES "public"."risk_likelihood_levels"("value") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risk_treatments" ADD CONSTRAINT "risk_treatments_residual_impact_risk_impact_levels_value_fk" FOREIGN KEY ("residual_impact") REFERENCES "public"."risk_impact_levels"("value") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risk_treatments" ADD CONSTRAINT "risk_treatments_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "treatment_controls" ADD CONSTRAINT "treatment_controls_treatment_id_risk_treatments_id_fk" FOREIGN KEY ("treatment_id") REFERENCES "public"."risk_treatments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "treatment_controls" ADD CONSTRAINT "treatment_controls_control_id_controls_id_fk" FOREIGN KEY ("control_id") REFERENCES "public"."controls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exceptions" ADD CONSTRAINT "exceptions_risk_id_risks_id_fk" FOREIGN KEY ("risk_id") REFERENCES "public"."risks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exceptions" ADD CONSTRAINT "exceptions_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exceptions" ADD CONSTRAINT "exceptions_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exceptions" ADD CONSTRAINT "exceptions_approver_id_users_id_fk" FOREIGN KEY ("approver_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "exceptions" ADD CONSTRAINT "exceptions_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "risk_reviews_risk_idx" ON "risk_reviews" USING btree ("risk_id","reviewed_on");--> statement-breakpoint
CREATE INDEX "risk_treatments_risk_idx" ON "risk_treatments" USING btree ("risk_id","created_at");--> statement-breakpoint
CREATE INDEX "treatment_controls_control_idx" ON "treatment_controls" USING btree ("control_id");--> statement-breakpoint
CREATE INDEX "exceptions_risk_idx" ON "exceptions" USING btree ("risk_id");--> statement-breakpoint
CREATE INDEX "exceptions_parent_created_idx" ON "exceptions" USING btree ("parent_type","created_at","id");--> statement-breakpoint
CREATE INDEX "exceptions_owner_idx" ON "exceptions" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "exceptions_owner_group_idx" ON "exceptions" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "exceptions_expires_idx" ON "exceptions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "labels_name_unique" ON "labels" USING btree (lower("name"));