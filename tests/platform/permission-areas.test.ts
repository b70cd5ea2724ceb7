import { afterAll, describe, expect, test } from 'bun:test';
import { SERVICE_MODULES } from '../../src/app';
import { MODULES as MODULE_LIST } from '../../src/modules';
import { installModules } from '../../src/platform/modules/module';
import {
  ALL_PERMISSIONS, installPermissionAreas, isPermission, MODULES, permissionArea, rightsOf, SPECIFICATION_AREAS,
} from '../../src/platform/permissions/permissions';

// The permission areas come from the installed modules' manifests; the specification's areas without a module stay
// reserved. The app installs its modules when imported (the preload does); these tests install other lists and put
// the app's back afterwards.

afterAll(() => installModules(SERVICE_MODULES));

describe('permission areas declared by the manifests', () => {
  test('every installed module\'s area has exactly the rights its manifest declares', () => {
    installModules(SERVICE_MODULES);
    const declared = MODULE_LIST.flatMap((m) => (m.permissions ? [m.permissions] : []));
    expect(declared.length).toBeGreaterThan(15);
    for (const area of declared) expect([area.name, ...rightsOf(area.name)]).toEqual([area.name, ...area.rights]);
    expect(rightsOf('risks')).toContain('review');
    expect(rightsOf('settings')).toEqual(['read', 'create', 'update']);
  });

  test('an area of the specification that no module declares is reserved with read, create, update and delete', () => {
    installPermissionAreas([permissionArea('risks', { review: true })]);
    expect(MODULES).toEqual([...SPECIFICATION_AREAS]);
    expect(rightsOf('assessments')).toEqual(['read', 'create', 'update', 'delete']);
    expect(rightsOf('controls')).toEqual(['read', 'create', 'update', 'delete']);
    expect(isPermission('assessments:delete')).toBe(true);
    expect(isPermission('assessments:review')).toBe(false);
  });

  test('a module declaring a reserved area gives its rights; the list keeps the specification\'s order', () => {
    installPermissionAreas([permissionArea('assessments', { review: true }), permissionArea('risks', { review: true })]);
    expect(rightsOf('assessments')).toEqual(['read', 'create', 'update', 'delete', 'review']);
    expect(isPermission('assessments:review')).toBe(true);
    expect(ALL_PERMISSIONS.slice(0, 5)).toEqual(['risks:read', 'risks:create', 'risks:update', 'risks:delete', 'risks:review']);
    expect(MODULES.indexOf('assessments')).toBe(SPECIFICATION_AREAS.indexOf('assessments'));
  });

  test('two modules may share an area only with the same rights', () => {
    const settings = permissionArea('settings', { rights: ['read', 'create', 'update'] });
    expect(() => installPermissionAreas([settings, settings])).not.toThrow();
    expect(() => installPermissionAreas([settings, permissionArea('settings')])).toThrow('permission area settings is declared with different rights');
  });
});
