#!/bin/sh
# make deploy-check: build the image with no outside registry, bring the deployment up
# with podman-compose, play a competition through the API on two worker containers (the
# uploads validated by a third, the users' lane), tear it all down. Root, with podman,
# podman-compose and mmdebstrap installed:
#
#   apt-get install podman podman-compose mmdebstrap runc golang-github-containernetworking-plugin-dnsname
#   deploy/deploy-check.sh    (from the repository root; REBUILD_BASE=1 redoes the base image,
#                              REUSE_IMAGE=1 skips rebuilding the project's image)
#
# Exits non-zero, with the failing step's output, when any step fails.
set -eu
cd "$(dirname "$0")/.."
BASE=${CARDROOM_BASE_IMAGE:-localhost/cardroom-base:bookworm}
IMAGE=localhost/cardroom:check
PROJECT=cardroom-check
COMPOSE="podman-compose -p $PROJECT -f deploy/check/compose.yaml"
LOGS=${DEPLOY_CHECK_LOGS:-var/deploy-check}
# runc and modest ulimits, for this check's containers only (deploy/check/containers.conf).
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/check/containers.conf}"

step() { printf '\n== %s\n' "$*"; }
for tool in podman podman-compose mmdebstrap runc /usr/lib/cni/dnsname; do
    command -v "$tool" >/dev/null || { echo "deploy-check needs $tool: apt-get install podman podman-compose mmdebstrap runc golang-github-containernetworking-plugin-dnsname" >&2; exit 2; }
done
mkdir -p "$LOGS"

teardown() {
    status=$?
    step "logs in $LOGS; tearing down"
    for service in postgres redis migrate web worker-1 worker-2 worker-users beat; do
        podman logs "${PROJECT}_${service}_1" >"$LOGS/$service.log" 2>&1 || true
    done
    $COMPOSE down >/dev/null 2>&1 || true
    podman network rm -f "${PROJECT}_default" >/dev/null 2>&1 || true
    exit $status
}

if [ "${REBUILD_BASE:-0}" = 1 ] || ! podman image exists "$BASE"; then
    step "base image $BASE from the Debian mirror (mmdebstrap)"
    deploy/check/build-base.sh
fi

if [ "${REUSE_IMAGE:-0}" = 1 ] && podman image exists "$IMAGE"; then
    step "reusing $IMAGE (REUSE_IMAGE=1)"
else
step "project image $IMAGE on $BASE (deploy/Dockerfile)"
# A host that reaches PyPI through a TLS-inspecting proxy trusts its CA in the system
# bundle: lend the bundle (and a pip.conf naming it) to the build only, never to the image.
TRUST=""
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    printf '[global]\ncert = /etc/ssl/host-ca-certificates.crt\n' >"$LOGS/pip.conf"
    TRUST="-v /etc/ssl/certs/ca-certificates.crt:/etc/ssl/host-ca-certificates.crt:ro -v $PWD/$LOGS/pip.conf:/etc/pip.conf:ro"
fi
# The committed tree (HEAD, or DEPLOY_CHECK_REF), not the working tree's unfinished edits.
CONTEXT=$(mktemp -d)
git archive "${DEPLOY_CHECK_REF:-HEAD}" | tar -x -C "$CONTEXT"
# shellcheck disable=SC2086
podman build --network host $TRUST --build-arg BASE="$BASE" -f "$CONTEXT/deploy/Dockerfile" \
    -t "$IMAGE" "$CONTEXT" || { rm -rf "$CONTEXT"; exit 1; }
rm -rf "$CONTEXT"
fi

trap teardown EXIT
$COMPOSE down >/dev/null 2>&1 || true
podman network rm -f "${PROJECT}_default" >/dev/null 2>&1 || true

step "PostgreSQL and Redis"
$COMPOSE up -d postgres redis
for i in $(seq 60); do
    podman exec "${PROJECT}_postgres_1" pg_isready -h 127.0.0.1 -q 2>/dev/null \
        && podman exec "${PROJECT}_redis_1" redis-cli ping 2>/dev/null | grep -q PONG && break
    [ "$i" = 60 ] && { echo "PostgreSQL or Redis did not come up" >&2; exit 1; }
    sleep 1
done

step "migrate"
$COMPOSE up -d migrate
[ "$(podman wait "${PROJECT}_migrate_1")" = 0 ] || { podman logs "${PROJECT}_migrate_1"; exit 1; }

step "web, two competition workers, the users' worker, beat"
$COMPOSE up -d web worker-1 worker-2 worker-users beat
for i in $(seq 90); do
    curl -sS -o /dev/null http://127.0.0.1:18000/api/bots/ 2>/dev/null && break  # any answer: up
    [ "$i" = 90 ] && { podman logs "${PROJECT}_web_1"; exit 1; }
    sleep 1
done

step "a competition through the API"
python3 deploy/check/competition.py http://127.0.0.1:18000 \
    --organiser-command "podman exec ${PROJECT}_web_1 python manage.py organiser"

step "both workers played"
for worker in worker-1 worker-2; do
    played=$(podman logs "${PROJECT}_${worker}_1" 2>&1 | grep -c "match_run.*succeeded.*'recorded'" || true)
    echo "$worker: $played matches recorded"
    [ "$played" -gt 0 ] || { echo "$worker played no match" >&2; exit 1; }
    cached=$(podman exec "${PROJECT}_${worker}_1" sh -c 'ls /var/lib/cardroom/bot-cache/blobs 2>/dev/null | wc -l')
    echo "$worker: $cached uploads in its own bot cache (fetched from the store)"
    [ "$cached" -gt 0 ] || { echo "$worker has an empty bot cache" >&2; exit 1; }
done
if podman exec "${PROJECT}_web_1" test -e /var/lib/cardroom/bot-cache; then
    echo "the web container unpacked bots: it should only store them" >&2; exit 1
fi
step "deploy-check passed"
