import type { DocContext } from '../documents/doc-context.js';
import type { MailRequest } from '../mail/queue-mail.js';

/** What two-factor login needs of mail: queue one in the caller's unit (MailService.queue), sent after the commit. */
export interface MailQueue {
  queue(ctx: DocContext, mail: MailRequest): Promise<string>;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The three mails of two-factor login, in the reference's words (docs/identity.md "Two-factor login"). */
export const twoFactorMails = {
  /** The Email method's code. */
  code(issuer: string, code: string): { subject: string; message: string } {
    return {
      subject: `Login Verification Code from ${issuer}`,
      message: `<p>Enter this code to complete your login:</p><p><b style="font-size: 18px;">${code}</b></p><p>It works once, for five minutes. If you did not try to sign in, someone knows your password: change it.</p>`,
    };
  },
  /** The first OTP App login: a link to a page showing the QR code to scan. */
  qrLink(issuer: string, link: string, minutes: number): { subject: string; message: string } {
    const href = escapeHtml(link);
    return {
      subject: `One Time Password (OTP) Registration Code from ${issuer}`,
      message: `<p>Please click on the following link and follow the instructions on the page.</p><p><a href="${href}">${href}</a></p><p>The link works for ${minutes} minute(s). If you did not try to sign in, someone knows your password: change it.</p>`,
    };
  },
  /** reset_otp_secret tells the user. */
  resetNotice(issuer: string): { subject: string; message: string } {
    const name = escapeHtml(issuer);
    return {
      subject: `OTP Secret Reset - ${issuer}`,
      message: `<p>Your OTP secret on ${name} has been reset. If you did not perform this reset and did not request it, please contact your System Administrator immediately.</p>`,
    };
  },
};

/** A mail to one user about their own account, with fw's usual defaults. */
export function accountMail(to: string, user: string, mail: { subject: string; message: string }): MailRequest {
  return {
    recipients: [to],
    cc: [],
    bcc: [],
    subject: mail.subject,
    message: mail.message,
    headers: {},
    // Sent before bulk mail: someone waits for it at a login page.
    priority: 10,
    attachments: [],
    referenceDoctype: 'User',
    referenceName: user,
  };
}
