// The web dashboard and the control API (docs/dashboard.md).
export {
  startDashboard,
  dashboardService,
  DashboardConfigError,
  type Dashboard,
  type DashboardOptions,
} from './server.js';
export { REFUSALS } from './refusals.js';
export type { DashboardBot } from './dashboard-state.js';
export type { DashboardLogger } from './control-routes.js';
export { openApiDocument } from './openapi.js';
