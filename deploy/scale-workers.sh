#!/bin/sh
# The compose equivalent of deploy/keda/scaledobject.yaml: one worker container of the
# competitions' lane (the worker service) for every WORKER_BACKLOG messages waiting in
# its queues, at least MIN_WORKERS, at most MAX_WORKERS (deploy/README.md "Metrics and
# autoscaling"). The users' lane (worker-users, one per host) is not scaled: its work
# fills the CPU the competitions leave idle, and more competition workers would not take
# it (docs/queues.md "Lanes"). Run it every minute (cron or a systemd timer) on the
# Docker host, from the repository:
#
#   * * * * * cd /opt/cardroom && deploy/scale-workers.sh >> /var/log/cardroom-scale.log 2>&1
#
# It scales up at once and down by one container per run (a warm shutdown: the
# stopped worker finishes its match within stop_grace_period, or its match goes back
# to the queue). QUEUES are the names (config/settings/workers.py) of the matches the worker
# service takes: tournaments' and league seasons', ladders'.
set -eu

COMPOSE="${COMPOSE:-docker compose -f deploy/compose.yaml}"
QUEUES="${QUEUES:-matches ladders}"
WORKER_BACKLOG="${WORKER_BACKLOG:-10}"
MIN_WORKERS="${MIN_WORKERS:-1}"
MAX_WORKERS="${MAX_WORKERS:-8}"

depth=0
for queue in $QUEUES; do
    # kombu's Redis lists: the queue itself and one per priority step.
    for list in "$queue" "$(printf '%s\006\0263' "$queue")" \
        "$(printf '%s\006\0266' "$queue")" "$(printf '%s\006\0269' "$queue")"; do
        n=$($COMPOSE exec -T redis redis-cli LLEN "$list")
        depth=$((depth + n))
    done
done

want=$(( (depth + WORKER_BACKLOG - 1) / WORKER_BACKLOG ))
[ "$want" -lt "$MIN_WORKERS" ] && want=$MIN_WORKERS
[ "$want" -gt "$MAX_WORKERS" ] && want=$MAX_WORKERS
have=$($COMPOSE ps -q worker | wc -l)
if [ "$want" -lt "$have" ]; then
    want=$((have - 1)) # down one at a time
fi
if [ "$want" -ne "$have" ]; then
    echo "$(date -u +%FT%TZ) backlog $depth: workers $have -> $want"
    $COMPOSE up -d --no-recreate --scale worker="$want" worker
fi
