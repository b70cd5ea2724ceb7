/** A value made on first use and kept: schemas that name what the installed modules declare are made after installation. */
export const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};
