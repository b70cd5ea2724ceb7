/**
 * Bridge for src/modules/risks/treatments-pages.tsx, which still imports '../exceptions/view' (the risks folder is being
 * rewritten elsewhere). The exception screens live in ./views; delete this file once that import names './views'.
 */
export { EXCEPTION_STATUS_LABELS, ExceptionRequestForm, Expiry } from './views';
