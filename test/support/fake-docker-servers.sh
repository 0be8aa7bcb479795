#!/usr/bin/env bash
# A stand-in `docker` for running the generated backup scripts without an engine, with REAL database
# servers behind it: a named volume is a folder ($FAKE_ROOT/volumes/<name>); a "postgresql" service is a
# PostgreSQL server whose data directory is its volume, "redis" a redis-server whose dir is its volume;
# `compose exec` and `compose run` run the command on this machine against that project's server;
# `docker run` of the helper image runs its command here with /data and /backup pointing at the mounts.
# FAKE_FAIL_AFTER=<regex> fails a helper run whose arguments match, after it ran.
# Everything it is asked is appended to $FAKE_ROOT/docker.log. The services of the stack are listed in
# $FAKE_ROOT/services; the running ones of each project in $FAKE_ROOT/projects/<project>/running.
set -uo pipefail
: "${FAKE_ROOT:?}" "${FAKE_PG_BIN:?}"
echo "$*" >> "$FAKE_ROOT/docker.log"

project=''
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[i]}" = -p ] && project=${args[i + 1]}
done
if [ -z "$project" ]; then
  project=$(sed -n 's/^COMPOSE_PROJECT_NAME=//p' .env 2>/dev/null | tail -n 1)
  [ -n "$project" ] || project=$(basename "$PWD")
fi
state="$FAKE_ROOT/projects/$project"
mkdir -p "$state" "$FAKE_ROOT/volumes"
touch "$state/running"
env_of() { sed -n "s/^$1=//p" .env 2>/dev/null | tail -n 1; }
# each project's servers get their own ports, so the stack and its verify copy run side by side
port_base=$((20000 + $(printf '%s' "$project" | cksum | cut -d' ' -f1) % 20000))
pg_port=$((port_base + 1))
redis_port=$((port_base + 2))
pg_volume="$FAKE_ROOT/volumes/${project}_postgresql-data"
redis_volume="$FAKE_ROOT/volumes/${project}_redis-data"

pg() { runuser -u postgres -- "$FAKE_PG_BIN/$1" "${@:2}"; }

start_service() {
  case $1 in
    postgresql)
      mkdir -p "$pg_volume" "$state/pgsock"
      chown postgres: "$pg_volume" "$state/pgsock" "$state"
      chmod 700 "$pg_volume"
      if [ ! -s "$pg_volume/PG_VERSION" ]; then
        # what the image's entrypoint does on an empty volume: initdb with the superuser from .env, then POSTGRES_DB
        env_of POSTGRESQL_POSTGRES_PASSWORD > "$state/pw"
        chown postgres: "$state/pw"
        pg initdb -D "$pg_volume" -U "$(env_of POSTGRESQL_POSTGRES_USER)" --pwfile="$state/pw" --auth-local=trust --auth-host=scram-sha-256 >/dev/null || return 1
        pg pg_ctl -D "$pg_volume" -w -l "$state/pg.log" -o "-p $pg_port -k $state/pgsock -c listen_addresses=''" start >/dev/null || return 1
        psql -X -q -h "$state/pgsock" -p "$pg_port" -U "$(env_of POSTGRESQL_POSTGRES_USER)" -d postgres -c "create database \"$(env_of POSTGRESQL_POSTGRES_DB)\"" || return 1
      else
        pg pg_ctl -D "$pg_volume" -w -l "$state/pg.log" -o "-p $pg_port -k $state/pgsock -c listen_addresses=''" start >/dev/null || return 1
      fi ;;
    redis)
      mkdir -p "$redis_volume"
      redis-server --port "$redis_port" --dir "$redis_volume" --appendonly yes --requirepass "$(env_of REDIS_REDIS_PASSWORD)" --daemonize yes --logfile "$state/redis.log" >/dev/null || return 1
      until redis-cli -p "$redis_port" -a "$(env_of REDIS_REDIS_PASSWORD)" --no-auth-warning ping 2>/dev/null | grep -q PONG; do sleep 0.2; done ;;
  esac
  grep -qx "$1" "$state/running" || echo "$1" >> "$state/running"
}

stop_service() {
  case $1 in
    postgresql) [ -f "$pg_volume/postmaster.pid" ] && pg pg_ctl -D "$pg_volume" -m fast -w stop >/dev/null ;;
    redis) redis-cli -p "$redis_port" -a "$(env_of REDIS_REDIS_PASSWORD)" --no-auth-warning shutdown >/dev/null 2>&1 ;;
  esac
  sed -i "/^$1\$/d" "$state/running"
}

# run_here SERVICE COMMAND...: a command "inside" SERVICE's container: its environment, its tools reaching this
# project's server, /data its volume
run_here() {
  local service=$1 bin
  shift
  bin="$state/bin-$service"
  mkdir -p "$bin"
  # the servers listen on this project's ports: the clients are pointed there as the container's would be
  printf '#!/bin/sh\nexec /usr/bin/redis-cli -p "${FAKE_REDIS_PORT:-%s}" "$@"\n' "$redis_port" > "$bin/redis-cli"
  chmod +x "$bin/redis-cli"
  local subst=("${@//\/data/$FAKE_ROOT/volumes/${project}_${service}-data}")
  env PATH="$bin:$PATH" PGHOST="$state/pgsock" PGPORT="$pg_port" \
    POSTGRES_USER="$(env_of POSTGRESQL_POSTGRES_USER)" REDIS_PASSWORD="$(env_of REDIS_REDIS_PASSWORD)" "${subst[@]}"
}

case "$*" in
  info|"compose version") exit 0 ;;
  "compose config --services") cat "$FAKE_ROOT/services" ;;
  # the resolved compose file as Compose prints it: services at two spaces, their keys at four
  "compose config") printf 'name: %s\nservices:\n' "$project"; while read -r s; do printf '  %s:\n    image: example/%s:1\n' "$s" "$s"; done < "$FAKE_ROOT/services" ;;
  "compose images"*) echo '[]' ;;
  "compose ps --services --status running") cat "$state/running" ;;
  "compose ps -a -q") while read -r s; do echo "c-$project-$s"; done < "$FAKE_ROOT/services" ;;
  "compose up -d --no-recreate "*)
    for s in "${args[@]:4}"; do grep -qx "$s" "$state/running" || start_service "$s" || exit 1; done ;;
  "compose ps -q"*)
    svc=${args[3]:-}
    while read -r s; do
      [ -z "$svc" ] || [ "$s" = "$svc" ] && echo "c-$project-$s"
    done < "$state/running" ;;
  "compose stop"|"compose down"*|"compose -p "*" down"*)
    while read -r s; do stop_service "$s"; done < <(cat "$state/running")
    # as Compose does: -v removes the project's volumes that carry its label, never one made without it
    if [[ "$*" == *" -v"* ]]; then
      for v in "$FAKE_ROOT/volumes/${project}_"*; do
        [ -e "$FAKE_ROOT/unlabelled/${v##*/}" ] || rm -rf "$v"
      done
    fi ;;
  "compose start"|"compose up -d --remove-orphans"|"compose -p "*" up -d"*)
    while read -r s; do grep -qx "$s" "$state/running" || start_service "$s" || exit 1; done < "$FAKE_ROOT/services" ;;
  "compose up -d --no-deps "*) start_service "${*: -1}" || exit 1 ;;
  "compose exec -T "*)
    # compose exec -T SERVICE COMMAND...
    run_here "${args[3]}" "${args[@]:4}" ;;
  "compose run --rm --no-deps -T --user "*" --entrypoint sh "*)
    # a one-off container of the service as the given user: its command on this machine (a Redis load runs its
    # own server on 6399)
    FAKE_REDIS_PORT=6399 run_here "${args[9]}" sh "${args[@]:10}" ;;
  inspect*Labels*) echo "${args[-1]#c-"$project"-} example/${args[-1]#c-"$project"-}:1 sha256:id-${args[-1]#c-"$project"-}" ;;
  inspect*Health*) echo healthy:0 ;;
  inspect*) echo "/${args[-1]}" ;;
  "image inspect"*) ref=${args[-1]#example/}; echo "sha256:id-${ref%%:*}" ;;
  "volume create "*)
    # docker volume create [--label K=V]... NAME: an existing volume is kept as it is, labels and all
    name=${args[-1]}
    if [ ! -d "$FAKE_ROOT/volumes/$name" ]; then
      mkdir -p "$FAKE_ROOT/volumes/$name" "$FAKE_ROOT/unlabelled"
      [[ " $* " == *" --label com.docker.compose.project=$project "* ]] || touch "$FAKE_ROOT/unlabelled/$name"
    fi ;;
  "volume inspect "*) [ -d "$FAKE_ROOT/volumes/${args[2]}" ] ;;
  "run --rm "*)
    # docker run --rm [--label K=V] -v VOLUME:/data[:ro] -v DIR:/backup[:ro] IMAGE COMMAND...
    rest=("${args[@]:2}")
    [ "${rest[0]}" != --label ] || rest=("${rest[@]:2}")
    volume=${rest[1]%%:*} dir=${rest[3]%%:*}
    mkdir -p "$FAKE_ROOT/volumes/$volume"
    cmd=("${rest[@]:5}")
    cmd=("${cmd[@]//\/backup/$dir}")
    cmd=("${cmd[@]//\/data/$FAKE_ROOT/volumes/$volume}")
    "${cmd[@]}" || exit $?
    # a fault after the command did its work (FAKE_FAIL_AFTER: a regular expression over the arguments)
    if [ -n "${FAKE_FAIL_AFTER:-}" ] && [[ "$*" =~ $FAKE_FAIL_AFTER ]]; then echo "fake fault after: $*" >&2; exit 1; fi ;;
  *) exit 0 ;;
esac
