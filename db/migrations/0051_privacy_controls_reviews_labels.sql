-- Data privacy: a processing activity's technical and organisational measures as links to controls, its periodic
-- reviews (next review on, and the reviews recorded with the review right), and labels on processing activities,
-- DPIAs, transfers and transfer impact assessments (ids of Settings › Labels, kept as arrays on the record).
ALTER TABLE "processing_activities" ADD COLUMN "control_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "processing_activities" ADD COLUMN "label_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "processing_activities" ADD COLUMN "next_review_on" date;--> statement-breakpoint
ALTER TABLE "dpias" ADD COLUMN "label_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "privacy_transfers" ADD COLUMN "label_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "transfer_impact_assessments" ADD COLUMN "label_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
CREATE INDEX "processing_activities_control_ids_idx" ON "processing_activities" USING gin ("control_ids");--> statement-breakpoint
CREATE INDEX "processing_activities_label_ids_idx" ON "processing_activities" USING gin ("label_ids");--> statement-breakpoint
CREATE INDEX "processing_activities_next_review_idx" ON "processing_activities" ("next_review_on");--> statement-breakpoint
CREATE INDEX "dpias_label_ids_idx" ON "dpias" USING gin ("label_ids");--> statement-breakpoint
CREATE INDEX "privacy_transfers_label_ids_idx" ON "privacy_transfers" USING gin ("label_ids");--> statement-breakpoint
CREATE INDEX "transfer_impact_assessments_label_ids_idx" ON "transfer_impact_assessments" USING gin ("label_ids");--> statement-breakpoint
CREATE TABLE "processing_activity_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"processing_activity_id" uuid NOT NULL REFERENCES "processing_activities"("id") ON DELETE CASCADE,
	"reviewed_on" date NOT NULL,
	"reviewer_id" uuid REFERENCES "users"("id"),
	"outcome" text NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"next_review_on" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "processing_activity_reviews_outcome_check" CHECK ("outcome" in ('no_change', 'changes_needed')),
	CONSTRAINT "processing_activity_reviews_next_check" CHECK ("next_review_on" is null or "next_review_on" > "reviewed_on")
);--> statement-breakpoint
CREATE INDEX "processing_activity_reviews_activity_idx" ON "processing_activity_reviews" ("processing_activity_id", "reviewed_on");
