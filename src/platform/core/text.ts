/** Case, spaces and underscores are ignored when matching names and allowed values: 'In Progress' = 'in_progress' = 'INPROGRESS'. */
export const squash = (text: string) => text.toLowerCase().replace(/[\s_]+/g, '');

/** A count with its noun: "1 risk", "3 risks" (`many` where the plural is not the noun plus s). */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
