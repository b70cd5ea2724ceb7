CREATE TABLE "third_parties" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"type" text DEFAULT 'vendor' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"website" text,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "third_parties_type_check" CHECK ("third_parties"."type" in ('vendor', 'partner', 'customer', 'other')),
	CONSTRAINT "third_parties_status_check" CHECK ("third_parties"."status" in ('active', 'offboarding', 'terminated')),
	CONSTRAINT "third_parties_website_length_check" CHECK (char_length("third_parties"."website") <= 2000)
);
--> statement-breakpoint
CREATE TABLE "third_party_contacts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"third_party_id" uuid NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"phone" text,
	"role" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "third_party_risks" (
	"third_party_id" uuid NOT NULL,
	"risk_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "third_party_risks_third_party_id_risk_id_pk" PRIMARY KEY("third_party_id","risk_id")
);
--> statement-breakpoint
CREATE TABLE "third_party_sub_processors" (
	"third_party_id" uuid NOT NULL,
	"sub_processor_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "third_party_sub_processors_third_party_id_sub_processor_id_pk" PRIMARY KEY("third_party_id","sub_processor_id"),
	CONSTRAINT "third_party_sub_processors_not_self_check" CHECK ("third_party_sub_processors"."third_party_id" <> "third_party_sub_processors"."sub_processor_id")
);
--> statement-breakpoint
ALTER TABLE "third_parties" ADD CONSTRAINT "third_parties_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "third_parties" ADD CONSTRAINT "third_parties_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "third_party_contacts" ADD CONSTRAINT "third_party_contacts_third_party_id_third_parties_id_fk" FOREIGN KEY ("third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "third_party_risks" ADD CONSTRAINT "third_party_risks_third_party_id_third_parties_id_fk" FOREIGN KEY ("third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "third_party_risks" ADD CONSTRAINT "third_party_risks_risk_id_risks_id_fk" FOREIGN KEY ("risk_id") REFERENCES "public"."risks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "third_party_sub_processors" ADD CONSTRAINT "third_party_sub_processors_third_party_id_third_parties_id_fk" FOREIGN KEY ("third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "third_party_sub_processors" ADD CONSTRAINT "third_party_sub_processors_sub_processor_id_third_parties_id_fk" FOREIGN KEY ("sub_processor_id") REFERENCES "public"."third_parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "third_parties_created_idx" ON "third_parties" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "third_parties_owner_idx" ON "third_parties" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "third_parties_owner_group_idx" ON "third_parties" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "third_parties_status_idx" ON "third_parties" USING btree ("status");--> statement-breakpoint
CREATE INDEX "third_party_contacts_third_party_idx" ON "third_party_contacts" USING btree ("third_party_id","name");--> statement-breakpoint
CREATE INDEX "third_party_risks_risk_idx" ON "third_party_risks" USING btree ("risk_id");--> statement-breakpoint
CREATE INDEX "third_party_sub_processors_sub_idx" ON "third_party_sub_processors" USING btree ("sub_processor_id");