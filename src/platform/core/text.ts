/** Case, spaces and underscores are ignored when matching names and allowed values: 'In Progress' = 'in_progress' = 'INPROGRESS'. */
export const squash = (text: string) => text.toLowerCase().replace(/[\s_]+/g, '');
