ALTER TABLE "exceptions" ADD COLUMN "policy_id" uuid;--> statement-breakpoint
ALTER TABLE "exceptions" ADD CONSTRAINT "exceptions_policy_id_policies_id_fk" FOREIGN KEY ("policy_id") REFERENCES "public"."policies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "exceptions_policy_idx" ON "exceptions" USING btree ("policy_id");--> statement-breakpoint
ALTER TABLE "exceptions" ADD CONSTRAINT "exceptions_policy_parent_check" CHECK (("exceptions"."parent_type" = 'policy') = ("exceptions"."policy_id" is not null));