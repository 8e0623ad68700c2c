/** node-postgres's value mapper, the one its own queries bind with (pg/lib/utils.js has no types of its own). */
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
