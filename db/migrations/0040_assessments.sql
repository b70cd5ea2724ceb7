CREATE TABLE "assessment_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"request_id" uuid NOT NULL,
	"question_key" text NOT NULL,
	"third_party_id" uuid,
	"name" text NOT NULL,
	"storage_key" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"content_type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "assessment_requests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"template_id" uuid NOT NULL,
	"template_version_id" uuid NOT NULL,
	"third_party_id" uuid,
	"respondent_name" text DEFAULT '' NOT NULL,
	"respondent_email" text NOT NULL,
	"due_on" date NOT NULL,
	"status" text DEFAULT 'sent' NOT NULL,
	"secret_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"answers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"review" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"score" integer,
	"submitted_at" timestamp with time zone,
	"reviewed_at" timestamp with time zone,
	"reviewer_id" uuid,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "assessment_requests_status_check" CHECK ("assessment_requests"."status" in ('sent', 'in_progress', 'submitted', 'returned', 'accepted', 'revoked')),
	CONSTRAINT "assessment_requests_score_check" CHECK ("assessment_requests"."score" between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE "assessment_template_versions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"template_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"title" text NOT NULL,
	"sections" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "assessment_templates" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"shipped_key" text,
	"version" integer DEFAULT 1 NOT NULL,
	"owner_id" uuid,
	"owner_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "assessment_files" ADD CONSTRAINT "assessment_files_request_id_assessment_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."assessment_requests"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_files" ADD CONSTRAINT "assessment_files_third_party_id_third_parties_id_fk" FOREIGN KEY ("third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_requests" ADD CONSTRAINT "assessment_requests_template_id_assessment_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."assessment_templates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_requests" ADD CONSTRAINT "assessment_requests_template_version_id_assessment_template_versions_id_fk" FOREIGN KEY ("template_version_id") REFERENCES "public"."assessment_template_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_requests" ADD CONSTRAINT "assessment_requests_third_party_id_third_parties_id_fk" FOREIGN KEY ("third_party_id") REFERENCES "public"."third_parties"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_requests" ADD CONSTRAINT "assessment_requests_reviewer_id_users_id_fk" FOREIGN KEY ("reviewer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_requests" ADD CONSTRAINT "assessment_requests_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_requests" ADD CONSTRAINT "assessment_requests_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_template_versions" ADD CONSTRAINT "assessment_template_versions_template_id_assessment_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."assessment_templates"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_templates" ADD CONSTRAINT "assessment_templates_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assessment_templates" ADD CONSTRAINT "assessment_templates_owner_group_id_groups_id_fk" FOREIGN KEY ("owner_group_id") REFERENCES "public"."groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "assessment_files_request_idx" ON "assessment_files" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "assessment_files_third_party_idx" ON "assessment_files" USING btree ("third_party_id");--> statement-breakpoint
CREATE UNIQUE INDEX "assessment_requests_secret_uq" ON "assessment_requests" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "assessment_requests_created_idx" ON "assessment_requests" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "assessment_requests_third_party_idx" ON "assessment_requests" USING btree ("third_party_id","created_at");--> statement-breakpoint
CREATE INDEX "assessment_requests_owner_idx" ON "assessment_requests" USING btree ("owner_id");--> statement-breakpoint
CREATE INDEX "assessment_requests_owner_group_idx" ON "assessment_requests" USING btree ("owner_group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "assessment_template_versions_uq" ON "assessment_template_versions" USING btree ("template_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "assessment_templates_shipped_key_uq" ON "assessment_templates" USING btree ("shipped_key");--> statement-breakpoint
CREATE INDEX "assessment_templates_created_idx" ON "assessment_templates" USING btree ("created_at","id");--> statement-breakpoint
CREATE INDEX "assessment_templates_owner_idx" ON "assessment_templates" USING btree ("owner_id");--> statement-breakpoint
-- The two shipped templates (src/modules/assessments/shipped.ts), version 1 each.
INSERT INTO "assessment_templates" ("id", "title", "description", "shipped_key", "version") VALUES ('6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c01', 'Vendor security questionnaire', 'A short questionnaire for a supplier that handles our data: certification, access, data protection, incidents and continuity.', 'vendor-security', 1);
--> statement-breakpoint
INSERT INTO "assessment_template_versions" ("id", "template_id", "version", "title", "sections") VALUES ('6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c11', '6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c01', 1, 'Vendor security questionnaire', '[{"title":"Certification and contact","questions":[{"key":"hasCertification","text":"Does your organisation hold a current, independently audited security certification for the service you provide us (for example ISO/IEC 27001 or a SOC 2 Type II report)?","kind":"yesno","required":true,"weight":3,"choices":[{"value":"yes","label":"Yes","score":100},{"value":"no","label":"No","score":0}]},{"key":"certificate","text":"Attach the certificate or the latest audit report.","hint":"PDF, image, text or office document, at most 10 MB.","kind":"file","required":true,"weight":0,"showWhen":{"question":"hasCertification","equals":"yes"}},{"key":"securityContact","text":"Who do we contact about security (name and e-mail address)?","kind":"text","required":true,"weight":0}]},{"title":"Access and data","questions":[{"key":"mfa","text":"Is multi-factor authentication required for every staff access to systems that hold our data?","kind":"yesno","required":true,"weight":3,"choices":[{"value":"yes","label":"Yes","score":100},{"value":"no","label":"No","score":0}]},{"key":"encryption","text":"Which of these protect our data?","kind":"multiple","required":true,"weight":2,"choices":[{"value":"atRest","label":"Encryption at rest","score":50},{"value":"inTransit","label":"Encryption in transit (TLS 1.2 or later)","score":50},{"value":"none","label":"None of these","score":0}]},{"key":"dataLocation","text":"Where is our data stored and processed?","kind":"single","required":true,"weight":2,"choices":[{"value":"eea","label":"In the European Economic Area","score":100},{"value":"adequate","label":"In a country with an EU adequacy decision","score":100},{"value":"elsewhere","label":"Elsewhere","score":30}]},{"key":"subprocessors","text":"How many subprocessors handle our data?","kind":"number","required":false,"weight":0}]},{"title":"Incidents and continuity","questions":[{"key":"incident","text":"Have you had a security incident affecting customer data in the last 24 months?","kind":"yesno","required":true,"weight":2,"choices":[{"value":"yes","label":"Yes","score":0},{"value":"no","label":"No","score":100}]},{"key":"incidentDetails","text":"Describe the incident and what you changed afterwards.","kind":"text","required":true,"weight":0,"showWhen":{"question":"incident","equals":"yes"}},{"key":"notifyHours","text":"Within how many hours do you tell customers about a personal data breach?","kind":"number","required":true,"weight":0},{"key":"restoreTested","text":"When did you last test restoring your service from backup?","kind":"date","required":false,"weight":1}]}]'::jsonb);
--> statement-breakpoint
INSERT INTO "assessment_templates" ("id", "title", "description", "shipped_key", "version") VALUES ('6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c02', 'DPIA screening', 'Does this processing need a data protection impact assessment? A higher score means fewer high-risk signs.', 'dpia-screening', 1);
--> statement-breakpoint
INSERT INTO "assessment_template_versions" ("id", "template_id", "version", "title", "sections") VALUES ('6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c12', '6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c02', 1, 'DPIA screening', '[{"title":"The processing","questions":[{"key":"purpose","text":"Describe the processing in a few sentences: what data, about whom, and why.","kind":"text","required":true,"weight":0},{"key":"specialData","text":"Does it involve special categories of personal data (health, biometrics, beliefs and the like) or data about criminal convictions?","kind":"yesno","required":true,"weight":3,"choices":[{"value":"yes","label":"Yes","score":0},{"value":"no","label":"No","score":100}]},{"key":"largeScale","text":"Is it large scale: many people, much data, or a wide area?","kind":"yesno","required":true,"weight":2,"choices":[{"value":"yes","label":"Yes","score":0},{"value":"no","label":"No","score":100}]},{"key":"vulnerable","text":"Does it concern people in a weaker position, such as children, employees or patients?","kind":"yesno","required":true,"weight":2,"choices":[{"value":"yes","label":"Yes","score":0},{"value":"no","label":"No","score":100}]}]},{"title":"How it is done","questions":[{"key":"techniques","text":"Which of these does it use?","kind":"multiple","required":true,"weight":3,"choices":[{"value":"profiling","label":"Evaluating or scoring people (profiling)","score":0},{"value":"automated","label":"Automated decisions with legal or similarly significant effects","score":0},{"value":"monitoring","label":"Systematic monitoring of a publicly accessible area","score":0},{"value":"newTechnology","label":"New technology, such as machine learning or biometrics","score":0},{"value":"none","label":"None of these","score":100}]},{"key":"combining","text":"Are data sets from different sources matched or combined?","kind":"yesno","required":true,"weight":1,"choices":[{"value":"yes","label":"Yes","score":0},{"value":"no","label":"No","score":100}]},{"key":"transfer","text":"Is personal data transferred outside the European Economic Area?","kind":"yesno","required":true,"weight":1,"choices":[{"value":"yes","label":"Yes","score":50},{"value":"no","label":"No","score":100}]},{"key":"safeguard","text":"Which safeguard covers the transfer (adequacy decision, standard contractual clauses, binding corporate rules)?","kind":"text","required":true,"weight":0,"showWhen":{"question":"transfer","equals":"yes"}},{"key":"startsOn","text":"When is the processing planned to start?","kind":"date","required":false,"weight":0}]}]'::jsonb);
