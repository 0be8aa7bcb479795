// The databases scripts/backup.sh --live copies with their own tools, and what each kind needs from its
// manifest: the programs its image must hold (listed in `binaries`) and the variables the commands read
// inside the container. The commands themselves live in templates/scripts/backup.sh.eta.

export type BackupKind = 'postgres' | 'mysql' | 'mariadb' | 'mongo' | 'redis' | 'valkey';

export interface DatabaseBackup { kind: BackupKind; userEnv?: string; passwordEnv?: string }

export const BACKUP_KINDS: Readonly<Record<BackupKind, { tools: readonly string[]; needs: readonly ('userEnv' | 'passwordEnv')[] }>> = {
  postgres: { tools: ['pg_dumpall', 'psql'], needs: ['userEnv'] },
  mysql: { tools: ['mysqldump', 'mysql'], needs: ['passwordEnv'] },
  mariadb: { tools: ['mariadb-dump', 'mariadb'], needs: ['passwordEnv'] },
  mongo: { tools: ['mongodump', 'mongorestore', 'mongosh'], needs: ['userEnv', 'passwordEnv'] },
  redis: { tools: ['redis-cli'], needs: [] },
  valkey: { tools: ['valkey-cli'], needs: [] },
};
