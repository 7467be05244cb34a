#!/usr/bin/env bash
# Build the wheelhouse the runtime image installs from: the synthenv wheel (from this
# checkout) plus CPython 3.11 manylinux x86_64 wheels of its serving dependencies, for
# Debian bookworm's python3. Needs PyPI; the image build that consumes it needs nothing.
# Carry the directory to an air-gapped machine and pass it to
# `synthenv package BUNDLE --image --wheelhouse DIR`.
#
# usage: scripts/build-wheelhouse.sh [DIR [REQUIREMENT...]]
#   DIR defaults to ~/.cache/synthenv/wheelhouse; REQUIREMENTs are extra packages for the
#   image (e.g. s3fs==2026.9.0 to pull from S3 inside a container).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] && [ -z "${PYTHON:-}" ] && PY=.venv/bin/python
exec "$PY" - "$@" <<'PYEOF'
import sys
from pathlib import Path
from pipeline.package.wheelhouse import build_wheelhouse

args = sys.argv[1:]
dest = build_wheelhouse(Path(args[0]) if args and args[0] else None, extra=args[1:],
                        log=lambda line: print(line, file=sys.stderr))
print(dest)
PYEOF
