export { raiseAlert, recentAlerts, type RaiseAlert } from "./raise";

