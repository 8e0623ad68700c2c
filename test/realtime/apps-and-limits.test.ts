import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listenOnSocketIoPort, type ExtraPort } from '../../src/realtime/socketio/socketio-port.js';
import { ScratchApps } from '../apps/app-site.js';
import { reopenWithConfig } from '../helpers/reopen-with-config.js';
import { testDialects } from '../helpers/dialects.js';
import { callMethod } from '../helpers/method-calls.js';
import { createUser, type ActingUser } from '../helpers/permission-users.js';
import { connectSocket, refusalOf, type RecordingSocket } from '../helpers/realtime-client.js';
import { startTestSite, type TestSite } from '../helpers/test-site.js';

/*
 * Realtime for apps (api.realtime: publish, msgprint, progress, after commit) and the limits of
 * docs/realtime.md: sockets per user, subscriptions per socket, message size, a named site, and the
 * second port frappe-ui apps connect to.
 */

const APP = `
export default {
  name: 'rtapp',
  register(api) {
    api.methods.register('rtapp.api.announce', async ({ ctx, args }) => {
      api.realtime.msgprint(ctx.principal.user, { message: String(args.text), indicator: 'green' }, { afterCommit: true, ctx });
      if (args.fail) throw new api.errors.ValidationError('refused after publishing');
      return 'ok';
    }, { methods: ['POST'] });
    api.methods.register('rtapp.api.step', async ({ args }) => {
      api.realtime.progress({ percent: Number(args.percent), title: 'Import' }, { taskId: String(args.task) });
      return 'ok';
    }, { methods: ['POST'] });
    api.methods.register('rtapp.api.evil', async () => {
      api.realtime.publish('eval_js', 'alert(1)', { room: 'all' });
    }, { methods: ['POST'] });
  },
};
`;

for (const dialect of testDialects()) {
  describe(`realtime for apps, and its limits (${dialect.name})`, () => {
    let base: TestSite;
    let t: TestSite;
    let apps: ScratchApps;
    let url: string;
    let extra: ExtraPort;
    let user: ActingUser;
    const open: RecordingSocket[] = [];
    const connect = async (options: Parameters<typeof connectSocket>[1], at = url) => {
      const s = await connectSocket(at, { namespace: '/erp.test', ...options });
      open.push(s);
      return s;
    };

    before(async () => {
      base = await startTestSite(dialect);
      user = await createUser(base, 'limits@rt.test', { roles: ['System Manager'] });
      apps = new ScratchApps();
      const module = await apps.write(APP);
      const view = await reopenWithConfig(base, {
        apps: [module],
        site_name: 'erp.test',
        realtime_max_sockets_per_user: 2,
        realtime_max_subscriptions: 1,
        realtime_max_message_bytes: 1024,
      });
      t = {
        site: view.site,
        app: view.app,
        adminAuth: base.adminAuth,
        close: () => view.close(),
        request: (options) =>
          view.app.inject({
            method: options.method,
            url: options.url,
            headers: { authorization: base.adminAuth, ...options.headers },
            ...(options.body === undefined ? {} : { payload: options.body as object }),
          }),
      };
      await view.app.listen({ host: '127.0.0.1', port: 0 });
      const address = view.app.server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      extra = await listenOnSocketIoPort(view.app, '127.0.0.1', 0);
    });
    after(async () => {
      for (const s of open) s.close();
      await extra?.close();
      await t?.close();
      await base.close();
      await apps.dispose();
    });

    test('an app publishes after the commit, and nothing when its request rolls back', async () => {
      const s = await connect({ headers: { authorization: base.adminAuth } });
      const failed = await callMethod(t, 'POST', 'rtapp.api.announce', { text: 'never', fail: 1 });
      assert.equal(failed.statusCode, 417, failed.body);
      const ok = await callMethod(t, 'POST', 'rtapp.api.announce', { text: 'done' });
      assert.equal(ok.statusCode, 200, ok.body);
      assert.deepEqual(await s.next('msgprint'), { message: 'done', indicator: 'green' });
      assert.equal(s.received.filter((r) => r.event === 'msgprint').length, 1);
    });

    test('progress reaches the clients following the task; eval_js is refused', async () => {
      const s = await connect({ headers: { authorization: user.auth } });
      assert.deepEqual(await s.ask('task_subscribe', 'task-42'), { ok: true });
      assert.equal((await callMethod(t, 'POST', 'rtapp.api.step', { percent: 40, task: 'task-42' })).statusCode, 200);
      assert.deepEqual(await s.next('progress'), { percent: 40, title: 'Import', description: null, task_id: 'task-42' });
      const evil = await callMethod(t, 'POST', 'rtapp.api.evil', {});
      assert.equal(evil.statusCode, 417, evil.body);
      assert.equal(evil.json().exc_type, 'ValidationError');
    });

    test('the namespace is site_name, on the main port and on the Socket.IO port', async () => {
      assert.equal(await refusalOf(url, { headers: { authorization: user.auth }, namespace: '/127.0.0.1' }), 'Invalid namespace');
      const s = await connect({ headers: { authorization: user.auth } }, `http://127.0.0.1:${extra.port}`);
      t.site.realtime.publish('notice', 'via 9000', { user: user.name });
      assert.equal(await s.next('notice'), 'via 9000');
    });

    test('a user holds at most realtime_max_sockets_per_user sockets, each at most realtime_max_subscriptions rooms', async () => {
      const seventh = await createUser(base, 'crowd@rt.test', { roles: ['System Manager'] });
      const first = await connect({ headers: { authorization: seventh.auth } });
      await connect({ headers: { authorization: seventh.auth } });
      assert.equal(await refusalOf(url, { headers: { authorization: seventh.auth }, namespace: '/erp.test' }), 'Too many connections for this user');
      assert.deepEqual(await first.ask('doctype_subscribe', 'ToDo'), { ok: true });
      assert.deepEqual(await first.ask('doctype_subscribe', 'User'), { ok: false, error: 'too many subscriptions' });
      first.close();
      await first.disconnected();
    });

    test('a client message over realtime_max_message_bytes closes its socket; a publish over it is refused', async () => {
      const s = await connect({ headers: { authorization: base.adminAuth } });
      s.socket.emit('doctype_subscribe', 'x'.repeat(4096));
      await s.disconnected();
      assert.throws(() => t.site.realtime.publish('big', 'y'.repeat(2048), { room: 'all' }), /over the limit of 1024 bytes/);
    });
  });
}
