CREATE TABLE "compliance_tree_views" (
	"user_id" uuid NOT NULL,
	"package_id" uuid NOT NULL,
	"open_item_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "compliance_tree_views_user_id_package_id_pk" PRIMARY KEY("user_id","package_id")
);
--> statement-breakpoint
ALTER TABLE "compliance_tree_views" ADD CONSTRAINT "compliance_tree_views_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "compliance_tree_views" ADD CONSTRAINT "compliance_tree_views_package_id_compliance_packages_id_fk" FOREIGN KEY ("package_id") REFERENCES "public"."compliance_packages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "compliance_tree_views_package_idx" ON "compliance_tree_views" USING btree ("package_id");