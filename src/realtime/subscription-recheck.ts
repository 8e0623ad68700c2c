import { announceViewers } from './doc-viewers.js';
import { principalOf } from './read-decider.js';
import type { AccessListener, RealtimeHub } from './realtime-hub.js';
import type { RecheckSite, TopicAccess } from './realtime-site.js';
import type { Subscriber } from './subscriber.js';
import { mayJoin, topicOfRoom } from './topics.js';

/** Where a re-check reports what it could not do. */
export interface RecheckLog {
  warn(obj: object, msg: string): void;
}

/**
 * What a process does when rights changed anywhere (docs/realtime.md, "Privacy"): it forgets the
 * principals and verified tokens it cached, so the next event is judged with the rights as they
 * are now, then judges again every subscription of the clients concerned, as when it was made, and
 * drops those no longer allowed. A client that left an open document is taken off its viewers.
 * Re-checks run one after another, outside the delivery of events, which the read check at
 * delivery keeps private meanwhile.
 */
export function recheckSubscriptions(site: RecheckSite, hub: RealtimeHub, log: RecheckLog): AccessListener {
  let running: Promise<void> = Promise.resolve();
  return (affected) => {
    site.principals.clear();
    site.tokenCache.clear();
    const clients = [...affected];
    running = running.then(() => recheck(site, hub, clients)).catch((err: unknown) => log.warn({ err }, 'realtime subscriptions could not be checked again'));
  };
}

async function recheck(site: TopicAccess, hub: RealtimeHub, clients: readonly Subscriber[]): Promise<void> {
  for (const client of clients) {
    const principal = await principalOf(site, client.user);
    if (!principal) {
      client.close('user disabled');
      continue;
    }
    for (const room of [...client.rooms]) {
      const topic = topicOfRoom(room);
      if (!topic || topic.kind === 'task') continue;
      if (await mayJoin(site, principal, topic).catch(() => false)) continue;
      hub.leave(client, room);
      if (topic.kind === 'open_doc') await announceViewers(hub, topic);
    }
  }
}
