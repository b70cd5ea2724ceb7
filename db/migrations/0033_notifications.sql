CREATE TABLE "mail_preferences" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"digests" boolean DEFAULT true NOT NULL,
	"rule_mails" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_cursor" (
	"name" text PRIMARY KEY NOT NULL,
	"audit_seq" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"record_type" text NOT NULL,
	"event" text NOT NULL,
	"field" text,
	"value" text,
	"notify_owner" boolean DEFAULT false NOT NULL,
	"notify_owner_group" boolean DEFAULT false NOT NULL,
	"user_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"group_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"addresses" text[] DEFAULT '{}'::text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_rules_event_check" CHECK ("notification_rules"."event" in ('created', 'changed', 'field_changed', 'status_changed', 'assigned', 'recorded', 'deleted'))
);
--> statement-breakpoint
CREATE TABLE "reminder_digests" (
	"day" date NOT NULL,
	"user_id" uuid NOT NULL,
	"items" integer NOT NULL,
	"outbox_id" bigint,
	"queued_at" timestamp with time zone,
	CONSTRAINT "reminder_digests_day_user_id_pk" PRIMARY KEY("day","user_id")
);
--> statement-breakpoint
CREATE TABLE "reminder_lists" (
	"day" date NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"total" integer NOT NULL,
	"items" jsonb NOT NULL,
	CONSTRAINT "reminder_lists_day_user_id_kind_pk" PRIMARY KEY("day","user_id","kind")
);
--> statement-breakpoint
CREATE TABLE "reminder_runs" (
	"day" date PRIMARY KEY NOT NULL,
	"since" date,
	"since_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"recipients" integer DEFAULT 0 NOT NULL,
	"items" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "rejected" text[];--> statement-breakpoint
ALTER TABLE "mail_preferences" ADD CONSTRAINT "mail_preferences_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_rules" ADD CONSTRAINT "notification_rules_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "notification_rules_record_type_idx" ON "notification_rules" USING btree ("record_type");--> statement-breakpoint
CREATE INDEX "reminder_digests_pending_idx" ON "reminder_digests" USING btree ("day","user_id") WHERE "reminder_digests"."outbox_id" is null;