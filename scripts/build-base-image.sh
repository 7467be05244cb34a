#!/usr/bin/env bash
# Build the synthenv base image locally: a minimal Debian bookworm with python3 (3.11) and
# venv, made with debootstrap and `docker import`. Needs root, debootstrap and a Debian
# mirror; needs no image registry. Skips the work when the image already exists (--force
# rebuilds). For an air-gapped engine: run this where a mirror is reachable, then
# `docker save synthenv-base:bookworm -o base.tar` and `docker load -i base.tar` there.
#
# usage: scripts/build-base-image.sh [--force] [--tag NAME:TAG] [--mirror URL] [--save FILE]
set -euo pipefail

TAG=${SYNTHENV_BASE_IMAGE:-synthenv-base:bookworm}
MIRROR=${DEBIAN_MIRROR:-}
SUITE=bookworm
FORCE=0
SAVE=""
while [ $# -gt 0 ]; do
    case "$1" in
        --force) FORCE=1 ;;
        --tag) TAG=$2; shift ;;
        --mirror) MIRROR=$2; shift ;;
        --save) SAVE=$2; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done

have_docker_cli() { command -v docker >/dev/null 2>&1; }
PY=${PYTHON:-python3}

image_exists() {
    if have_docker_cli; then
        docker image inspect "$TAG" >/dev/null 2>&1
    else
        "$PY" -c 'import sys, docker
try:
    docker.from_env().images.get(sys.argv[1])
except docker.errors.ImageNotFound:
    sys.exit(1)' "$TAG"
    fi
}

if [ "$FORCE" = 0 ] && image_exists; then
    echo "base image $TAG already present (use --force to rebuild)" >&2
    exit 0
fi
# The Debian mirror this machine's apt already uses (a .sources or .list entry), unless
# --mirror or DEBIAN_MIRROR names one.
detect_mirror() {
    local files=() f uri
    for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && files+=("$f"); done
    for f in "${files[@]}"; do
        uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security|ubuntu/) { print $i; exit } }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/ && $i !~ /security|ubuntu/) { print $i; exit } }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
}
[ -n "$MIRROR" ] || MIRROR=$(detect_mirror)
if [ -z "$MIRROR" ]; then
    echo "error: no Debian mirror found in /etc/apt; pass --mirror URL (or set DEBIAN_MIRROR)" >&2
    exit 2
fi
if [ "$(id -u)" != 0 ]; then
    echo "error: debootstrap needs root (run with sudo), or docker load a saved base image" >&2
    exit 2
fi
if ! command -v debootstrap >/dev/null 2>&1; then
    echo "error: debootstrap is not installed (apt-get install -y debootstrap)" >&2
    exit 2
fi

WORK=$(mktemp -d /var/tmp/synthenv-base.XXXXXX)
ROOTFS=$WORK/rootfs
cleanup() {
    # debootstrap mounts proc and sys inside the tree while it runs: unmount before removing.
    for m in proc sys dev/pts; do umount -l "$ROOTFS/$m" 2>/dev/null || true; done
    rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT
start=$(date +%s)

# minbase: essential packages and apt only; python3-venv brings ensurepip, which the
# runtime image uses to make its virtualenv without any network.
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates \
    "$SUITE" "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 || {
    tail -n 30 "$WORK/debootstrap.log" >&2
    echo "error: debootstrap failed (log above)" >&2
    exit 1
}

# Trim what a container never reads; keep the package database so apt still works.
chroot "$ROOTFS" apt-get clean
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/*.bin \
    "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/info/* \
    "$ROOTFS"/usr/share/locale/* "$ROOTFS"/var/log/*.log "$ROOTFS"/var/log/apt/* \
    "$ROOTFS"/var/cache/debconf/*-old "$ROOTFS"/tmp/* "$ROOTFS"/root/.cache
find "$ROOTFS"/usr/lib/python3* -name __pycache__ -prune -exec rm -rf {} + 2>/dev/null || true
printf 'deb %s %s main\n' "$MIRROR" "$SUITE" >"$ROOTFS/etc/apt/sources.list"
: >"$ROOTFS/etc/machine-id"

# One layer, sorted and with fixed times so equal trees give equal tarballs.
TARBALL=$WORK/rootfs.tar
tar --sort=name --mtime='2000-01-01 00:00:00Z' --numeric-owner -C "$ROOTFS" -cf "$TARBALL" .

CHANGES=(--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
         --change 'ENV LANG=C.UTF-8'
         --change 'CMD ["python3"]')
if have_docker_cli; then
    docker import "${CHANGES[@]}" "$TARBALL" "$TAG" >/dev/null
else
    "$PY" - "$TARBALL" "$TAG" <<'EOF'
import sys, docker
repo, _, tag = sys.argv[2].partition(":")
changes = ["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "ENV LANG=C.UTF-8", 'CMD ["python3"]']
docker.from_env().api.import_image_from_file(sys.argv[1], repository=repo, tag=tag or "latest", changes=changes)
EOF
fi
if [ -n "$SAVE" ]; then
    if have_docker_cli; then docker save -o "$SAVE" "$TAG"; else
        "$PY" -c 'import sys, docker
with open(sys.argv[2], "wb") as fh:
    for chunk in docker.from_env().images.get(sys.argv[1]).save(named=True): fh.write(chunk)' "$TAG" "$SAVE"
    fi
fi
echo "built base image $TAG in $(( $(date +%s) - start ))s" >&2
