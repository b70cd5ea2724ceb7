import { inArray } from 'drizzle-orm';
import { groups, users } from '../../../db/schema';
import type { RecordEvents } from '../../platform/notifications/declarations';

/** People own nothing: reading them needs settings:read at level all (as Settings › Users). */
export const peopleEvents: RecordEvents[] = [
  {
    recordType: 'user', label: 'User', module: 'settings', titleField: 'name', href: (id) => `/settings/users/${id}`,
    fields: { name: 'Name', email: 'Email', status: 'Status' },
    statusField: 'status', statuses: { active: 'Active', deactivated: 'Deactivated' },
    async load(db, ids) {
      if (ids.length === 0) return new Map();
      const rows = await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids));
      return new Map(rows.map((r) => [r.id, { title: r.name, owners: [] }]));
    },
  },
  {
    recordType: 'group', label: 'Group', module: 'settings', titleField: 'name', href: () => '/settings/groups',
    fields: { name: 'Name', description: 'Description' },
    activities: [{ key: 'members', label: 'Member added or removed', actions: ['member.add', 'member.remove'] }],
    async load(db, ids) {
      if (ids.length === 0) return new Map();
      const rows = await db.select({ id: groups.id, name: groups.name }).from(groups).where(inArray(groups.id, ids));
      return new Map(rows.map((r) => [r.id, { title: r.name, owners: [] }]));
    },
  },
];
