#!/usr/bin/env bash
# The Debian packages Cardroom needs on the host, for one purpose:
#
#   deploy/host-packages.sh demo   the bot sandbox (bots/sandbox): bubblewrap, prlimit
#                                  (util-linux), Debian's python3 with numpy (the one
#                                  library Python bots may import), libseccomp2
#   deploy/host-packages.sh test   the above, chromium (the browser test) and postgresql
#                                  (the server binaries `make test` starts a private
#                                  PostgreSQL from when DATABASE_URL is unset)
#   deploy/host-packages.sh ci     the above and redis-server (.ci/run starts one)
#
# What is present is left alone. Run as root with apt-get, it installs what is missing;
# otherwise it installs nothing, prints the one command that would and exits 1.
# `make test`, `make demo` and `.ci/run` call it first. CARDROOM_SKIP_HOST_PACKAGES=1
# skips it (a host set up another way; the tests then say what they lack).
# Exit codes: 0 all present (or installed), 1 something missing, 2 bad usage.
set -euo pipefail

purpose="${1:-}"
case "$purpose" in
    demo | test | ci) ;;
    *)
        echo "usage: $0 demo|test|ci" >&2
        exit 2
        ;;
esac
if [ "${CARDROOM_SKIP_HOST_PACKAGES:-0}" = 1 ]; then
    exit 0
fi

# A root directory to look in instead of / (only for testing this script).
root="${CARDROOM_HOST_ROOT:-}"

has_file() { [ -x "$root$1" ]; }
has_library() {
    if [ -n "$root" ]; then
        compgen -G "$root/usr/lib/*/$1*" >/dev/null || compgen -G "$root/usr/lib/$1*" >/dev/null
    else
        ldconfig -p 2>/dev/null | grep -q "$1"
    fi
}
has_postgres_server() { compgen -G "$root/usr/lib/postgresql/*/bin/initdb" >/dev/null; }

missing=()
has_file /usr/bin/bwrap || missing+=(bubblewrap)
has_file /usr/bin/prlimit || missing+=(util-linux)
has_file /usr/bin/python3 || missing+=(python3)
# numpy for the sandbox's python3 (PROTOCOL.md, "What a bot may import"): Debian's build.
[ -f "$root/usr/lib/python3/dist-packages/numpy/__init__.py" ] || missing+=(python3-numpy)
has_library 'libseccomp.so.2' || missing+=(libseccomp2)
# `make` creates .venv with $PYTHON (python3): Debian's needs python3-venv for that.
venv="${VENV:-.venv}"
if [ -z "$root" ] && ! [ -x "$venv/bin/python" ] \
    && ! "${PYTHON:-python3}" -c 'import ensurepip' >/dev/null 2>&1; then
    missing+=(python3-venv)
fi
if [ "$purpose" != demo ]; then
    has_file /usr/bin/chromium || missing+=(chromium)
    has_postgres_server || missing+=(postgresql)
fi
if [ "$purpose" = ci ]; then
    has_file /usr/bin/redis-server || missing+=(redis-server)
fi

if [ "${#missing[@]}" = 0 ]; then
    exit 0
fi

command="apt-get install -y ${missing[*]}"
if [ -z "$root" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing the Debian packages Cardroom needs: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; }; then
        echo "error: '$command' failed (see above)" >&2
        exit 1
    fi
    exit 0
fi

echo "error: Cardroom needs the Debian packages ${missing[*]} on this host for '$purpose'." >&2
if command -v apt-get >/dev/null 2>&1 || [ -n "$root" ]; then
    echo "Install them with:" >&2
    echo "    sudo $command" >&2
else
    echo "This host has no apt-get: install the equivalents of ${missing[*]} by hand," >&2
    echo "or set CARDROOM_SKIP_HOST_PACKAGES=1 to go on without them." >&2
fi
exit 1
