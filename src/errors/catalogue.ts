import { FwError } from './fw-error.js';

/*
 * The one catalogue of client-visible errors (docs/api.md "Errors"). Each class fixes its
 * exc_type and HTTP status; the HTTP tests in test/api/ assert each one a client can meet.
 */

/** 400: a request whose Authorization header cannot be parsed. */
export class CSRFTokenError extends FwError {
  static override readonly excType: string = 'CSRFTokenError';
  static override readonly status: number = 400;
}
export class InvalidAuthorizationHeader extends CSRFTokenError {
  static override readonly excType: string = 'InvalidAuthorizationHeader';
}
export class InvalidAuthorizationToken extends CSRFTokenError {
  static override readonly excType: string = 'InvalidAuthorizationToken';
}
/** 400: a body that is not a JSON object or array, or does not parse. */
export class InvalidRequestBody extends FwError {
  static override readonly excType: string = 'InvalidRequestBody';
  static override readonly status: number = 400;
}

/** 400: a request value (JSON body, JSON text in a query or form field) nested deeper than the edge allows. */
export class NestingDepthExceeded extends InvalidRequestBody {
  static override readonly excType: string = 'NestingDepthExceeded';
}

/** 401: credentials were presented and are wrong. */
export class AuthenticationError extends FwError {
  static override readonly excType: string = 'AuthenticationError';
  static override readonly status: number = 401;
}

/** 403: the principal may not do this. */
export class PermissionError extends FwError {
  static override readonly excType: string = 'PermissionError';
  static override readonly status: number = 403;
}

/** 404: unknown document, DocType, method or route. */
export class DoesNotExistError extends FwError {
  static override readonly excType: string = 'DoesNotExistError';
  static override readonly status: number = 404;
}

/** 405: a verb a resource route does not take. */
export class MethodNotAllowed extends FwError {
  static override readonly excType: string = 'MethodNotAllowed';
  static override readonly status: number = 405;
}

/** 409: a name clash or an invalid name. */
export class DuplicateEntryError extends FwError {
  static override readonly excType: string = 'DuplicateEntryError';
  static override readonly status: number = 409;
}
export class NameError extends FwError {
  static override readonly excType: string = 'NameError';
  static override readonly status: number = 409;
}

/** 413: the request body or an upload is over its limit. */
export class RequestTooLarge extends FwError {
  static override readonly excType: string = 'RequestTooLarge';
  static override readonly status: number = 413;
}
export class MaxFileSizeReachedError extends FwError {
  static override readonly excType: string = 'MaxFileSizeReachedError';
  static override readonly status: number = 413;
}

/** 416: a Range header that asks only for bytes past the end of a file. */
export class RangeNotSatisfiableError extends FwError {
  static override readonly excType: string = 'RangeNotSatisfiableError';
  static override readonly status: number = 416;
}

/** 417: the request is well-formed but its content is refused. */
export class ValidationError extends FwError {
  static override readonly excType: string = 'ValidationError';
  static override readonly status: number = 417;
}
export class MandatoryError extends ValidationError {
  static override readonly excType: string = 'MandatoryError';
}
export class UniqueValidationError extends ValidationError {
  static override readonly excType: string = 'UniqueValidationError';
}
export class LinkValidationError extends ValidationError {
  static override readonly excType: string = 'LinkValidationError';
}
export class CancelledLinkError extends LinkValidationError {
  static override readonly excType: string = 'CancelledLinkError';
}
export class LinkExistsError extends ValidationError {
  static override readonly excType: string = 'LinkExistsError';
}
export class TimestampMismatchError extends ValidationError {
  static override readonly excType: string = 'TimestampMismatchError';
}
export class DocstatusTransitionError extends ValidationError {
  static override readonly excType: string = 'DocstatusTransitionError';
}
export class UpdateAfterSubmitError extends ValidationError {
  static override readonly excType: string = 'UpdateAfterSubmitError';
}
export class CharacterLengthExceededError extends ValidationError {
  static override readonly excType: string = 'CharacterLengthExceededError';
}
export class InvalidEmailAddressError extends ValidationError {
  static override readonly excType: string = 'InvalidEmailAddressError';
}
export class InvalidPhoneNumberError extends ValidationError {
  static override readonly excType: string = 'InvalidPhoneNumberError';
}
export class InvalidURLError extends ValidationError {
  static override readonly excType: string = 'InvalidURLError';
}
export class NonNegativeError extends ValidationError {
  static override readonly excType: string = 'NonNegativeError';
}
export class CannotChangeConstantError extends ValidationError {
  static override readonly excType: string = 'CannotChangeConstantError';
}
export class InvalidUUIDValue extends ValidationError {
  static override readonly excType: string = 'InvalidUUIDValue';
}
export class DataError extends ValidationError {
  static override readonly excType: string = 'DataError';
}
export class FrappeTypeError extends ValidationError {
  static override readonly excType: string = 'FrappeTypeError';
}
/** A document under a workflow has no state, or no workflow applies (docs/workflows.md). */
export class WorkflowStateError extends ValidationError {
  static override readonly excType: string = 'WorkflowStateError';
}
/** An action that is not one the caller may take from the document's state (docs/workflows.md). */
export class WorkflowTransitionError extends ValidationError {
  static override readonly excType: string = 'WorkflowTransitionError';
}
/** A state or docstatus change that skips the workflow (docs/workflows.md). */
export class WorkflowPermissionError extends ValidationError {
  static override readonly excType: string = 'WorkflowPermissionError';
}

/** 429: rate limits and the login lockout. */
export class TooManyRequestsError extends FwError {
  static override readonly excType: string = 'TooManyRequestsError';
  static override readonly status: number = 429;
}
export class SecurityException extends FwError {
  static override readonly excType: string = 'SecurityException';
  static override readonly status: number = 429;
}

/** 503: the site cannot serve this now (maintenance, read-only, database unreachable). */
export class InReadOnlyMode extends FwError {
  static override readonly excType: string = 'InReadOnlyMode';
  static override readonly status: number = 503;
}
export class SessionStopped extends FwError {
  static override readonly excType: string = 'SessionStopped';
  static override readonly status: number = 503;
}
export class ServiceUnavailableError extends FwError {
  static override readonly excType: string = 'ServiceUnavailableError';
  static override readonly status: number = 503;
}
