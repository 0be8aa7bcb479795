// The one image the generated scripts run their own helper containers from (scripts/backup.sh: archive,
// check and unpack volumes). Alpine's main repository gets fixes for two years: 3.23 until 2027-11-01,
// 3.22 until 2027-05-01, while 3.20 (the old pin) ended 2026-04-01 (alpinelinux.org/releases). The minor
// tag follows the 3.23.x patch releases, so a pull brings security fixes without a new branch.
export const HELPER_IMAGE = 'alpine:3.23';
/** The .env setting of how many backups scripts/backup.sh keeps (the oldest go first). */
export const BACKUP_KEEP_VARIABLE = 'STACK_BACKUP_KEEP';
export const BACKUP_KEEP_DEFAULT = 7;
