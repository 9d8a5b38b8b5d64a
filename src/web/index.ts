// The web dashboard and the control API (docs/dashboard.md).
export {
  startDashboard,
  dashboardService,
  DashboardConfigError,
  REFUSALS,
  type Dashboard,
  type DashboardBot,
  type DashboardLogger,
  type DashboardOptions,
} from './server.js';
export { openApiDocument } from './openapi.js';
