export { raiseAlert, recentAlerts, type RaiseAlert } from "./raise";
export { alertEmail, alertWebhookBody, dispatchAlerts, queueAlertWebhooks, sendAlertEmails } from "./dispatch";
