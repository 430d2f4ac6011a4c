#!/bin/sh
# A local Debian 12 base image for Cardroom, from the Debian mirror only (no registry):
# mmdebstrap a minimal rootfs with Python, the bot runtimes and sandbox tools, and
# PostgreSQL and Redis, then `podman import` it as localhost/cardroom-base:bookworm.
#
#   deploy/check/build-base.sh [MIRROR]       (as root; needs mmdebstrap and podman)
set -eu
MIRROR=${1:-http://deb.debian.org/debian}
IMAGE=${CARDROOM_BASE_IMAGE:-localhost/cardroom-base:bookworm}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

PACKAGES=ca-certificates,python3,python3-numpy,python3-venv,bubblewrap,util-linux,libseccomp2,nodejs,postgresql,redis-server,netbase,procps,curl

mmdebstrap --variant=minbase --include="$PACKAGES" \
    --customize-hook='chroot "$1" sh -c "apt-get clean; rm -rf /var/lib/apt/lists/*"' \
    bookworm "$WORK/rootfs.tar" "deb $MIRROR bookworm main" "deb $MIRROR bookworm-updates main"
podman import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' "$WORK/rootfs.tar" "$IMAGE"
echo "built $IMAGE"
