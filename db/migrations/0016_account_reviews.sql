CREATE TABLE "account_review_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"program_id" uuid NOT NULL,
	"account" text NOT NULL,
	"system" text NOT NULL,
	"owner_id" uuid,
	"decision" text,
	"reviewer_id" uuid,
	"reviewed_at" timestamp with time zone,
	"notes" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_review_items_decision_check" CHECK ("account_review_items"."decision" is null or "account_review_items"."decision" in ('keep', 'revoke', 'modify'))
);
--> statement-breakpoint
CREATE TABLE "account_review_programs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"due_on" date,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_review_programs_status_check" CHECK ("account_review_programs"."status" in ('open', 'closed'))
);
--> statement-breakpoint
ALTER TABLE "account_review_items" ADD CONSTRAINT "account_review_items_program_id_account_review_programs_id_fk" FOREIGN KEY ("program_id") REFERENCES "public"."account_review_programs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_review_items" ADD CONSTRAINT "account_review_items_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_review_items" ADD CONSTRAINT "account_review_items_reviewer_id_users_id_fk" FOREIGN KEY ("reviewer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_review_programs" ADD CONSTRAINT "account_review_programs_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_review_programs" ADD CONSTRAINT "account_review_programs_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_review_programs" ADD CONSTRAINT "account_review_programs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_review_items_account_uq" ON "account_review_items" USING btree ("program_id","system","account");--> statement-breakpoint
CREATE INDEX "account_review_items_program_idx" ON "account_review_items" USING btree ("program_id","created_at","id");--> statement-breakpoint
CREATE INDEX "account_review_items_owner_idx" ON "account_review_items" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "account_review_programs_created_idx" ON "account_review_programs" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "account_review_programs_owner_idx" ON "account_review_programs" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "account_review_programs_owner_group_idx" ON "account_review_programs" USING btree ("owner_group_id");--> statement-breakpoint
CREATE INDEX "account_review_programs_status_idx" ON "account_review_programs" USING btree ("status");