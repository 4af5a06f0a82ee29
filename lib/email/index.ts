export { emailAvailable, emailDelivery, emailFrom, sendEmail, type EmailDelivery, type EmailMessage, type SendResult } from "./send";
export { emailsIdle, sendLater } from "./send-later";
export { passwordResetEmail, renderEmail, verifyEmailEmail, type EmailContent } from "./templates";
