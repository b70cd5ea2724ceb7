-- Transfers and transfer impact assessments are found by search (docs/data-privacy.md): a transfer by its name and
-- notes, a TIA by its name and the laws assessed.
SELECT grc_make_searchable('privacy_transfers', 'name', 'notes');
--> statement-breakpoint
SELECT grc_make_searchable('transfer_impact_assessments', 'name', 'laws_assessed');
--> statement-breakpoint
-- The categories of data subjects and of personal data, lists an administrator edits under Settings › Privacy
-- categories. Records store an entry's key, so renaming an entry changes no record; the keys below are the ones the
-- fixed lists used before, so records written then keep their values.
CREATE TABLE "privacy_data_subject_categories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "privacy_data_subject_categories_key_unique" UNIQUE("key"),
	CONSTRAINT "privacy_data_subject_categories_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "privacy_personal_data_categories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "privacy_personal_data_categories_key_unique" UNIQUE("key"),
	CONSTRAINT "privacy_personal_data_categories_name_unique" UNIQUE("name")
);
--> statement-breakpoint
-- Reference data is added, never changed: an entry already there (by key or name) is left as the administrator made it.
INSERT INTO "privacy_data_subject_categories" ("key", "name", "description") VALUES
	('employees', 'Employees', 'Current and former staff'),
	('job_applicants', 'Job applicants', 'Candidates for a position'),
	('contractors', 'Contractors', 'Freelancers and temporary workers'),
	('customers', 'Customers', 'People who buy or use the organisation''s products or services'),
	('prospects', 'Prospects', 'Potential customers'),
	('supplier_contacts', 'Supplier contacts', 'Contact persons at suppliers and partners'),
	('website_visitors', 'Website visitors', 'People visiting the organisation''s websites and apps'),
	('patients', 'Patients', 'People receiving care'),
	('students', 'Students', 'Pupils and learners'),
	('children', 'Children', 'People under 18 (Art. 8 for information society services)'),
	('members', 'Members', 'Members of an association, club or loyalty scheme'),
	('citizens', 'Citizens', 'Members of the public served by a public authority')
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "privacy_personal_data_categories" ("key", "name", "description") VALUES
	('identification', 'Identification', 'Name, date of birth, identity document numbers'),
	('contact_details', 'Contact details', 'Postal address, email address, telephone number'),
	('financial', 'Financial', 'Bank account, payment card, salary, transactions'),
	('employment', 'Employment', 'Position, employer, performance, absence'),
	('education', 'Education', 'Qualifications, schools, results'),
	('location', 'Location', 'Geolocation and travel data'),
	('online_identifiers', 'Online identifiers', 'IP addresses, cookie identifiers, device identifiers'),
	('communications', 'Communications', 'Content and metadata of emails, calls and messages'),
	('images_and_recordings', 'Images and recordings', 'Photographs, video (CCTV) and audio recordings'),
	('racial_or_ethnic_origin', 'Racial or ethnic origin', 'Special category (Art. 9(1))'),
	('political_opinions', 'Political opinions', 'Special category (Art. 9(1))'),
	('religious_or_philosophical_beliefs', 'Religious or philosophical beliefs', 'Special category (Art. 9(1))'),
	('trade_union_membership', 'Trade union membership', 'Special category (Art. 9(1))'),
	('genetic_data', 'Genetic data', 'Special category (Art. 9(1))'),
	('biometric_data', 'Biometric data', 'Special category (Art. 9(1)) when processed to identify a person uniquely'),
	('health_data', 'Health data', 'Special category (Art. 9(1))'),
	('sex_life_or_sexual_orientation', 'Sex life or sexual orientation', 'Special category (Art. 9(1))')
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- How many records use an entry (Settings shows it; an entry in use is not deleted) is an array containment test.
CREATE INDEX IF NOT EXISTS "processing_activities_subject_categories_idx" ON "processing_activities" USING gin ("data_subject_categories");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "processing_activities_data_categories_idx" ON "processing_activities" USING gin ("personal_data_categories");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "asset_data_maps_data_categories_idx" ON "asset_data_maps" USING gin ("data_categories");
