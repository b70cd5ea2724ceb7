CREATE TABLE "control_tests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"control_id" uuid NOT NULL,
	"tested_on" date NOT NULL,
	"result" text NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"tester_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "control_tests_result_check" CHECK ("control_tests"."result" in ('pass', 'fail', 'partial'))
);
--> statement-breakpoint
CREATE TABLE "controls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"type" text DEFAULT 'process' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"test_frequency_months" integer,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "controls_type_check" CHECK ("controls"."type" in ('policy', 'process', 'technical', 'physical', 'other')),
	CONSTRAINT "controls_status_check" CHECK ("controls"."status" in ('planned', 'active', 'retired')),
	CONSTRAINT "controls_test_frequency_check" CHECK ("controls"."test_frequency_months" between 1 and 120)
);
--> statement-breakpoint
ALTER TABLE "control_tests" ADD CONSTRAINT "control_tests_control_id_controls_id_fk" FOREIGN KEY ("control_id") REFERENCES "public"."controls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "control_tests" ADD CONSTRAINT "control_tests_tester_id_users_id_fk" FOREIGN KEY ("tester_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "controls" ADD CONSTRAINT "controls_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "controls" ADD CONSTRAINT "controls_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "controls" ADD CONSTRAINT "controls_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "control_tests_control_idx" ON "control_tests" USING btree ("control_id","tested_on");--> statement-breakpoint
CREATE INDEX "controls_created_idx" ON "controls" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "controls_owner_idx" ON "controls" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "controls_owner_group_idx" ON "controls" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "controls_status_idx" ON "controls" USING btree ("status");