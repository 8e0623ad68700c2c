/**
 * The name of an amendment of `original` (reference `_set_amended_name`): `X` -> `X-1`; when
 * `original` is itself an amendment, its counter goes up instead: `X-1` -> `X-2`.
 * Whether it is an amendment must come from the stored `amended_from` of `original`, never
 * from the shape of the name: `TASK-00001` is a first document, and amending it gives
 * `TASK-00001-1`, not `TASK-00002`.
 */
export function amendedName(original: string, originalIsAmendment: boolean): string {
  if (originalIsAmendment) {
    const match = /^(.*)-(\d+)$/s.exec(original);
    if (match) return `${match[1]}-${Number(match[2]) + 1}`;
  }
  return `${original}-1`;
}
