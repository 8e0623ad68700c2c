/** The warning after a site was created with a weak Administrator password (accepted, as the README's `admin`). */
export function weakAdminWarning(reason: string): string {
  return (
    `fw: warning: the Administrator password is ${reason}. Fine on your own machine; anywhere reachable, ` +
    'set a strong one: fw user set-password Administrator\n'
  );
}
