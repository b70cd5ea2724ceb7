import { isHtmx, Layout } from '../../../views/layout';
import { levelOf, type Actor } from '../permissions/permissions';
import { navigation, type NavEntry } from './installed';

/**
 * The app shell as the screens use it: the shared layout (views/layout.tsx, which knows nothing of the platform) given
 * the navigation the viewer may open, built from the modules' manifests.
 */

const mayOpen = (viewer: Actor, entry: Pick<NavEntry, 'needs' | 'level'>) => {
  if (!entry.needs) return true;
  const level = levelOf(viewer, entry.needs);
  return entry.level === 'all' ? level === 'all' : level !== null;
};

/** The side navigation this viewer may open, by group. */
const navigationFor = (viewer: Actor) =>
  navigation().map((g) => ({ group: g.group, entries: g.entries.filter((e) => mayOpen(viewer, e)) })).filter((g) => g.entries.length > 0);

/** The Settings pages this viewer may open (the Settings group of the navigation, and the Settings index). */
export const settingsLinksFor = (viewer: Actor): NavEntry[] => navigationFor(viewer).find((g) => g.group === 'Settings')?.entries ?? [];

export interface ShellProps {
  title: string;
  viewer: Actor;
  csrfToken: string;
  /** Key of the current section: 'risks' or a Settings key such as 'api-tokens'. */
  active?: string;
  /** The page's main action and secondary actions, on the right of the title. */
  actions?: JSX.Element;
  children?: JSX.Element;
}

/** Every signed-in page renders inside it. */
export function Shell({ title, viewer, csrfToken, active, actions, children }: ShellProps): JSX.Element {
  return <Layout title={title} nav={navigationFor(viewer)} email={viewer.email} csrfToken={csrfToken} active={active} actions={actions}>{children}</Layout>;
}

/**
 * A screen's response: the content alone for an htmx request, the content inside the shell otherwise, so both render
 * the very same component.
 */
export function renderScreen(headers: Record<string, string | undefined>, shell: Omit<ShellProps, 'children'>, content: JSX.Element): JSX.Element {
  return isHtmx(headers) ? content : <Shell {...shell}>{content}</Shell>;
}
