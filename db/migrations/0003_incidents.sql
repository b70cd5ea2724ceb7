CREATE TABLE "incident_breach_notifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"incident_id" uuid NOT NULL,
	"recipient" text NOT NULL,
	"notified_on" date NOT NULL,
	"reference" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_breach_notifications_recipient_check" CHECK ("incident_breach_notifications"."recipient" in ('authority', 'subjects'))
);
--> statement-breakpoint
CREATE TABLE "incident_breaches" (
	"incident_id" uuid PRIMARY KEY NOT NULL,
	"categories" text[] DEFAULT '{}'::text[] NOT NULL,
	"approximate_subjects" integer,
	"detected_at" date,
	"reported_at" date,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_breaches_subjects_check" CHECK ("incident_breaches"."approximate_subjects" >= 0)
);
--> statement-breakpoint
CREATE TABLE "incident_classifications" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incident_classifications_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "incidents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"classification_id" uuid,
	"opened_at" date NOT NULL,
	"asset_id" uuid,
	"third_party_id" uuid,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"status" text DEFAULT 'open' NOT NULL,
	"resolution" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "incidents_status_check" CHECK ("incidents"."status" in ('open', 'closed')),
	CONSTRAINT "incidents_closed_resolution_check" CHECK ("incidents"."status" <> 'closed' or btrim("incidents"."resolution") <> '')
);
--> statement-breakpoint
ALTER TABLE "incident_breach_notifications" ADD CONSTRAINT "incident_breach_notifications_incident_id_incident_breaches_incident_id_fk" FOREIGN KEY ("incident_id") REFERENCES "public"."incident_breaches"("incident_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incident_breaches" ADD CONSTRAINT "incident_breaches_incident_id_incidents_id_fk" FOREIGN KEY ("incident_id") REFERENCES "public"."incidents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_classification_id_incident_classifications_id_fk" FOREIGN KEY ("classification_id") REFERENCES "public"."incident_classifications"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "incident_breach_notifications_incident_idx" ON "incident_breach_notifications" USING btree ("incident_id","notified_on");--> statement-breakpoint
CREATE INDEX "incidents_created_idx" ON "incidents" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "incidents_owner_idx" ON "incidents" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "incidents_owner_group_idx" ON "incidents" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "incidents_status_idx" ON "incidents" USING btree ("status");--> statement-breakpoint
CREATE INDEX "incidents_classification_idx" ON "incidents" USING btree ("classification_id");