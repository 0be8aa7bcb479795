// A manifest's user as numbers: what Kubernetes can run a pod as (runAsUser takes no name), read by the loader's
// volume.owner rule and by the Kubernetes emitter, so both agree on what counts as numeric.

/** uid and gid of a manifest's `user` or `imageUser` when numeric ("999:999", "1000"); null for a name or nothing. */
export function numericUser(user: string | undefined): { uid: number; gid?: number } | null {
  const m = /^(\d+)(?::(\d+))?$/.exec(user ?? '');
  return m ? { uid: Number(m[1]), ...(m[2] ? { gid: Number(m[2]) } : {}) } : null;
}
