/** The realtime settings of site_config.json (see docs/realtime.md, "Configuration"). */
export interface RealtimeConfig {
  /** The Socket.IO namespace is `/<site_name>`; when unset, the host name the client connected to. */
  readonly site_name: string | null;
  /** A second port that serves Socket.IO (and the rest of the API), as frappe-ui apps expect on 9000; null: none. */
  readonly socketio_port: number | null;
  /** Sockets one user may hold open in one process; the next connection is refused. */
  readonly realtime_max_sockets_per_user: number;
  /** Rooms one socket or event stream may join beyond its own; later subscriptions are ignored. */
  readonly realtime_max_subscriptions: number;
  /** Largest message, in bytes of JSON, that may be published or received. */
  readonly realtime_max_message_bytes: number;
  /** Messages a client may have waiting to be sent before it is dropped as too slow. */
  readonly realtime_max_buffered_messages: number;
  /** Seconds between heartbeats of a Server-Sent Events stream. */
  readonly realtime_heartbeat_seconds: number;
  /** Recent events kept for Server-Sent Events clients that resume with Last-Event-ID. */
  readonly realtime_resume_events: number;
  /**
   * PostgreSQL: where the LISTEN connection goes when `db_url` points at a transaction-mode pooler
   * (pgbouncer), which cannot LISTEN; null: `db_url` itself.
   */
  readonly realtime_listen_url: string | null;
}

export const DEFAULT_REALTIME_CONFIG: RealtimeConfig = {
  site_name: null,
  socketio_port: null,
  realtime_max_sockets_per_user: 50,
  realtime_max_subscriptions: 500,
  realtime_max_message_bytes: 64 * 1024,
  realtime_max_buffered_messages: 1000,
  realtime_heartbeat_seconds: 25,
  realtime_resume_events: 2000,
  realtime_listen_url: null,
};

const SITE_NAME = /^[A-Za-z0-9._-]{1,253}$/;

function positiveInt(raw: Record<string, unknown>, key: keyof RealtimeConfig, fail: (msg: string) => never): number {
  const value = raw[key];
  if (value === undefined) return DEFAULT_REALTIME_CONFIG[key] as number;
  if (!Number.isInteger(value) || (value as number) <= 0) fail(`"${key}" must be a positive whole number`);
  return value as number;
}

/**
 * Reads the realtime keys of a parsed site_config.json, filling defaults. `fail` reports a bad
 * value the way the rest of the config loader does.
 */
export function parseRealtimeConfig(raw: Record<string, unknown>, fail: (msg: string) => never): RealtimeConfig {
  const siteName = raw.site_name;
  if (siteName !== undefined && siteName !== null && (typeof siteName !== 'string' || !SITE_NAME.test(siteName))) {
    fail('"site_name" must be a host-like name such as "erp.example.com"');
  }
  const port = raw.socketio_port;
  if (port !== undefined && port !== null && (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65535)) {
    fail('"socketio_port" must be a port number (0: any free port) or null');
  }
  const listenUrl = raw.realtime_listen_url;
  if (listenUrl !== undefined && listenUrl !== null && (typeof listenUrl !== 'string' || !/^postgres(ql)?:\/\//i.test(listenUrl))) {
    fail('"realtime_listen_url" must be a postgres:// URL or null');
  }
  return {
    site_name: typeof siteName === 'string' ? siteName : null,
    socketio_port: typeof port === 'number' ? port : null,
    realtime_max_sockets_per_user: positiveInt(raw, 'realtime_max_sockets_per_user', fail),
    realtime_max_subscriptions: positiveInt(raw, 'realtime_max_subscriptions', fail),
    realtime_max_message_bytes: positiveInt(raw, 'realtime_max_message_bytes', fail),
    realtime_max_buffered_messages: positiveInt(raw, 'realtime_max_buffered_messages', fail),
    realtime_heartbeat_seconds: positiveInt(raw, 'realtime_heartbeat_seconds', fail),
    realtime_resume_events: positiveInt(raw, 'realtime_resume_events', fail),
    realtime_listen_url: typeof listenUrl === 'string' ? listenUrl : null,
  };
}
