#!/usr/bin/env bash
# Keeps one process running, as docker-compose's `restart: unless-stopped` keeps the API and the
# worker: whenever it exits it is started again, after a delay that doubles from
# SUPERVISE_BACKOFF_MS (1000) up to SUPERVISE_BACKOFF_MAX_MS (60000) and falls back to the first
# once a run has lasted SUPERVISE_STABLE_S (10) seconds. Every start and exit is logged on stdout
# with the exit code or signal. SIGTERM or SIGINT stops the process (SIGTERM, then waits for it)
# and the supervisor, without a restart.
# Usage: stack/supervise.sh <name> <command> [args...]
set -uo pipefail

[ $# -ge 2 ] || { echo "usage: stack/supervise.sh <name> <command> [args...]" >&2; exit 2; }
name=$1; shift
first_delay_ms=${SUPERVISE_BACKOFF_MS:-1000}
max_delay_ms=${SUPERVISE_BACKOFF_MAX_MS:-60000}
stable_s=${SUPERVISE_STABLE_S:-10}

say() { printf '[supervise] %s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" "$*"; }

# wait's status: 128+N when signal N ended the process.
describe_exit() {
  if [ "$1" -gt 128 ]; then echo "was ended by signal $(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128)))"
  else echo "exited with code $1"; fi
}

seconds() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

child=''
sleeper=''
stopping=false
stop() {
  stopping=true
  [ -z "$child" ] || kill -TERM "$child" 2>/dev/null
  [ -z "$sleeper" ] || kill -TERM "$sleeper" 2>/dev/null
}
trap stop TERM INT

delay_ms=$first_delay_ms
restarts=0
while :; do
  started_at=$SECONDS
  "$@" &
  child=$!
  say "started (pid $child)"
  # A signal that arrived before $child was known has not reached the child yet.
  ! $stopping || kill -TERM "$child" 2>/dev/null
  # wait returns early when a trapped signal arrives: wait again until the child is gone.
  wait "$child" 2>/dev/null; status=$?
  while kill -0 "$child" 2>/dev/null; do wait "$child" 2>/dev/null; status=$?; done
  child=''
  if $stopping; then
    say "$(describe_exit "$status"); stopped"
    exit 0
  fi
  [ $((SECONDS - started_at)) -lt "$stable_s" ] || delay_ms=$first_delay_ms
  restarts=$((restarts + 1))
  say "$(describe_exit "$status"); restarting in $(seconds "$delay_ms") s (restart $restarts)"
  sleep "$(seconds "$delay_ms")" &
  sleeper=$!
  ! $stopping || kill -TERM "$sleeper" 2>/dev/null
  wait "$sleeper" 2>/dev/null
  sleeper=''
  if $stopping; then
    say "stopped"
    exit 0
  fi
  delay_ms=$((delay_ms * 2 > max_delay_ms ? max_delay_ms : delay_ms * 2))
done
