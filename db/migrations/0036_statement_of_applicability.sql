-- Statement of Applicability: whether each requirement applies, and why (docs/compliance-analyses.md).
ALTER TABLE "compliance_analyses" ADD COLUMN "applicable" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "compliance_analyses" ADD COLUMN "justification" text DEFAULT '' NOT NULL;
