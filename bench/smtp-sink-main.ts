// The SMTP sink of the mail bench (bench/mail-bench.ts), run as a process of its own so the
// delivery rate measures fw's sending, not a listener sharing its event loop: a real smtp-server
// on 127.0.0.1 that accepts everything, discards the text and tells its parent the count.
import { SMTPServer } from 'smtp-server';

let count = 0;
let told = 0;
const server = new SMTPServer({
  secure: false,
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      count += 1;
      callback();
    });
  },
});

server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});

// The count, at most every 20 ms and only when it moved.
setInterval(() => {
  if (count !== told) {
    told = count;
    process.send?.({ count });
  }
}, 20).unref();

process.on('disconnect', () => server.close(() => process.exit(0)));
