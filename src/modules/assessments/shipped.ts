import type { StoredSection } from '../../../db/schema';

/**
 * The two templates shipped with the service, written for it: a short vendor security questionnaire and a DPIA
 * screening. The migration (db/migrations/0040_assessments.sql) inserts them as version 1; this file is the text they
 * were made from, and a test compares the two.
 */
const yes = (score: number) => ({ value: 'yes', label: 'Yes', score });
const no = (score: number) => ({ value: 'no', label: 'No', score });

export const SHIPPED_TEMPLATES: { id: string; versionId: string; key: string; title: string; description: string; sections: StoredSection[] }[] = [
  {
    id: '6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c01', versionId: '6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c11', key: 'vendor-security',
    title: 'Vendor security questionnaire',
    description: 'A short questionnaire for a supplier that handles our data: certification, access, data protection, incidents and continuity.',
    sections: [
      {
        title: 'Certification and contact',
        questions: [
          { key: 'hasCertification', text: 'Does your organisation hold a current, independently audited security certification for the service you provide us (for example ISO/IEC 27001 or a SOC 2 Type II report)?', kind: 'yesno', required: true, weight: 3, choices: [yes(100), no(0)] },
          { key: 'certificate', text: 'Attach the certificate or the latest audit report.', hint: 'PDF, image, text or office document, at most 10 MB.', kind: 'file', required: true, weight: 0, showWhen: { question: 'hasCertification', equals: 'yes' } },
          { key: 'securityContact', text: 'Who do we contact about security (name and e-mail address)?', kind: 'text', required: true, weight: 0 },
        ],
      },
      {
        title: 'Access and data',
        questions: [
          { key: 'mfa', text: 'Is multi-factor authentication required for every staff access to systems that hold our data?', kind: 'yesno', required: true, weight: 3, choices: [yes(100), no(0)] },
          { key: 'encryption', text: 'Which of these protect our data?', kind: 'multiple', required: true, weight: 2, choices: [
            { value: 'atRest', label: 'Encryption at rest', score: 50 },
            { value: 'inTransit', label: 'Encryption in transit (TLS 1.2 or later)', score: 50 },
            { value: 'none', label: 'None of these', score: 0 },
          ] },
          { key: 'dataLocation', text: 'Where is our data stored and processed?', kind: 'single', required: true, weight: 2, choices: [
            { value: 'eea', label: 'In the European Economic Area', score: 100 },
            { value: 'adequate', label: 'In a country with an EU adequacy decision', score: 100 },
            { value: 'elsewhere', label: 'Elsewhere', score: 30 },
          ] },
          { key: 'subprocessors', text: 'How many subprocessors handle our data?', kind: 'number', required: false, weight: 0 },
        ],
      },
      {
        title: 'Incidents and continuity',
        questions: [
          { key: 'incident', text: 'Have you had a security incident affecting customer data in the last 24 months?', kind: 'yesno', required: true, weight: 2, choices: [yes(0), no(100)] },
          { key: 'incidentDetails', text: 'Describe the incident and what you changed afterwards.', kind: 'text', required: true, weight: 0, showWhen: { question: 'incident', equals: 'yes' } },
          { key: 'notifyHours', text: 'Within how many hours do you tell customers about a personal data breach?', kind: 'number', required: true, weight: 0 },
          { key: 'restoreTested', text: 'When did you last test restoring your service from backup?', kind: 'date', required: false, weight: 1 },
        ],
      },
    ],
  },
  {
    id: '6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c02', versionId: '6f0c2a8e-4b1d-4e7a-9c3f-0a5b7d9e1c12', key: 'dpia-screening',
    title: 'DPIA screening',
    description: 'Does this processing need a data protection impact assessment? A higher score means fewer high-risk signs.',
    sections: [
      {
        title: 'The processing',
        questions: [
          { key: 'purpose', text: 'Describe the processing in a few sentences: what data, about whom, and why.', kind: 'text', required: true, weight: 0 },
          { key: 'specialData', text: 'Does it involve special categories of personal data (health, biometrics, beliefs and the like) or data about criminal convictions?', kind: 'yesno', required: true, weight: 3, choices: [yes(0), no(100)] },
          { key: 'largeScale', text: 'Is it large scale: many people, much data, or a wide area?', kind: 'yesno', required: true, weight: 2, choices: [yes(0), no(100)] },
          { key: 'vulnerable', text: 'Does it concern people in a weaker position, such as children, employees or patients?', kind: 'yesno', required: true, weight: 2, choices: [yes(0), no(100)] },
        ],
      },
      {
        title: 'How it is done',
        questions: [
          { key: 'techniques', text: 'Which of these does it use?', kind: 'multiple', required: true, weight: 3, choices: [
            { value: 'profiling', label: 'Evaluating or scoring people (profiling)', score: 0 },
            { value: 'automated', label: 'Automated decisions with legal or similarly significant effects', score: 0 },
            { value: 'monitoring', label: 'Systematic monitoring of a publicly accessible area', score: 0 },
            { value: 'newTechnology', label: 'New technology, such as machine learning or biometrics', score: 0 },
            { value: 'none', label: 'None of these', score: 100 },
          ] },
          { key: 'combining', text: 'Are data sets from different sources matched or combined?', kind: 'yesno', required: true, weight: 1, choices: [yes(0), no(100)] },
          { key: 'transfer', text: 'Is personal data transferred outside the European Economic Area?', kind: 'yesno', required: true, weight: 1, choices: [yes(50), no(100)] },
          { key: 'safeguard', text: 'Which safeguard covers the transfer (adequacy decision, standard contractual clauses, binding corporate rules)?', kind: 'text', required: true, weight: 0, showWhen: { question: 'transfer', equals: 'yes' } },
          { key: 'startsOn', text: 'When is the processing planned to start?', kind: 'date', required: false, weight: 0 },
        ],
      },
    ],
  },
];
