import type { Doc } from '../meta/doctype.js';

/**
 * A document a message may only reach readers of: list_update and doc_update carry one, so that a
 * row hidden by if_owner, User Permissions or a `has_permission` hook never leaks its name
 * (docs/realtime.md, "Privacy"). `doc` is the last stored state when the document no longer exists
 * (a delete); otherwise each process reads the document itself.
 */
export interface ReadableBy {
  readonly doctype: string;
  readonly name: string;
  readonly doc?: Doc;
}

/** An event for one room, as published. */
export interface RealtimeMessage {
  readonly kind: 'event';
  readonly event: string;
  readonly message: unknown;
  readonly room: string;
  readonly readableBy?: ReadableBy;
}

/**
 * Ends the live connections of a user (disabled, deleted, password changed) or of one session
 * (logout); `exceptSid` keeps the session that changed the password; `tokensOnly` ends only those
 * opened with the user's API key and secret (the secret was replaced or the key cleared).
 */
export interface Revocation {
  readonly kind: 'revoke';
  readonly user?: string;
  readonly sid?: string;
  readonly exceptSid?: string;
  readonly tokensOnly?: true;
}

/**
 * Someone's rights may have changed (a role, User Permission, share or permission row): every
 * process forgets its cached principals before judging later events, and drops the subscriptions
 * the user (everyone, without `user`) may no longer hold (docs/realtime.md, "Privacy").
 */
export interface AccessChange {
  readonly kind: 'access';
  readonly user?: string;
}

/** What travels between processes. */
export type BusItem = RealtimeMessage | Revocation | AccessChange;

/** Items published together, with the id every process gives them alike (resume points). */
export interface BusBatch {
  readonly id: string;
  readonly items: readonly BusItem[];
}

/** An event as delivered: with the id clients resume from. */
export interface DeliveredMessage extends RealtimeMessage {
  readonly id: string;
}
