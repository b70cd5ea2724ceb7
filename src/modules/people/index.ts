import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { peopleApi } from './api';
import { peoplePages } from './pages';
import { loadUserRights, userActor } from './rights';
import { ensureFirstAdministrator, listGroups, listUsers } from './service';
import { scimApi } from './scim/api';
import { provisioningPages } from './scim/pages';
import { twoFactorPages } from './two-factor/pages';
import { signInPages } from './sign-in/pages';
import { ldapPages } from './sign-in/ldap-pages';
import { peopleEvents } from './notifications';

/** People: users, groups, roles, sessions, the signed-in user's password and second factor, SCIM provisioning and directory (LDAP) sign-in. */
export const manifest: ModuleManifest<'settings'> = defineModule({
  name: 'people',
  permissions: permissionArea('settings', { rights: ['read', 'create', 'update'] }),
  apiTags: {
    People: 'The directory of people and groups, for integrations that assign owners (docs/people.md).',
  },
  plugins: (ctx) => [peopleApi(ctx), peoplePages(ctx), scimApi(ctx), provisioningPages(ctx), twoFactorPages(ctx), signInPages(ctx), ldapPages(ctx)],
  services: {
    async screenActor(db, userId) {
      const user = await loadUserRights(db, userId);
      return user?.active ? userActor(user, 'screen') : null;
    },
    ensureFirstAdministrator, listUsers, listGroups,
  },
  nav: [
    { group: 'Settings', key: 'sessions', href: '/settings/sessions', label: 'Sessions', needs: 'settings:read' },
    { group: 'Settings', key: 'users', href: '/settings/users', label: 'Users', needs: 'settings:read' },
    { group: 'Settings', key: 'groups', href: '/settings/groups', label: 'Groups', needs: 'settings:read' },
    { group: 'Settings', key: 'roles', href: '/settings/roles', label: 'Roles', needs: 'settings:read' },
    { group: 'Settings', key: 'sign-in', href: '/settings/sign-in', label: 'Sign-in', needs: 'settings:read' },
    { group: 'Settings', key: 'ldap', href: '/settings/sign-in/ldap', label: 'Directory (LDAP)', needs: 'settings:read' },
    { group: 'Settings', key: 'provisioning', href: '/settings/provisioning', label: 'Provisioning', needs: 'settings:read' },
  ],
  events: peopleEvents,
});
