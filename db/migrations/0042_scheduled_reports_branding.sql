CREATE TABLE "report_schedules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"report_key" text NOT NULL,
	"filters" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"frequency" text NOT NULL,
	"weekday" integer,
	"month_day" integer,
	"user_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"group_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"paused" boolean DEFAULT false NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_period" text,
	"last_run_at" timestamp with time zone,
	"last_outcome" text,
	"skipped" jsonb DEFAULT '[]'::jsonb NOT NULL,
	CONSTRAINT "report_schedules_frequency_check" CHECK ("report_schedules"."frequency" in ('daily', 'weekly', 'monthly')),
	CONSTRAINT "report_schedules_weekday_check" CHECK ("report_schedules"."weekday" is null or "report_schedules"."weekday" between 1 and 7),
	CONSTRAINT "report_schedules_month_day_check" CHECK ("report_schedules"."month_day" is null or "report_schedules"."month_day" between 1 and 31)
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "attachments" jsonb;--> statement-breakpoint
ALTER TABLE "report_schedules" ADD CONSTRAINT "report_schedules_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;