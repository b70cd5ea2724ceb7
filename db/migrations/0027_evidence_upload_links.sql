CREATE TABLE "evidence_upload_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"secret_hash" text NOT NULL,
	"user_id" uuid NOT NULL,
	"token_id" uuid,
	"record_type" text NOT NULL,
	"record_id" uuid NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"files_used" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "evidence_upload_links" ADD CONSTRAINT "evidence_upload_links_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "evidence_upload_links_secret_key" ON "evidence_upload_links" USING btree ("secret_hash");