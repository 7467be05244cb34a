"""A gzip bomb handed to ``synthenv publish``: what reaches the disk before it is refused (issue 25:
"publish unpacks a 1 MB archive to 1 GiB on disk before refusing it").

Builds, streamed so it never sits in memory, a ``.tar.gz`` holding a real bundle's files with its
``state.sqlite`` replaced by ``--gib`` GiB of zeros (the manifest still lists the real size), then
runs ``synthenv publish ARCHIVE --registry R`` in a child process with ``TMPDIR`` pointed at a
private directory, sampling the bytes under the registry and that directory every 20 ms.
Reported: the archive's size, the exit code and first line of output, the seconds, and the most
bytes seen on disk at once (the archive itself not counted), with the load average.

    python benchmarks/archive_bomb_probe.py --bundle B [--gib 1]

Results are printed and written to ``benchmarks/results/archive_bomb_probe.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).absolute().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
CHUNK = 1 << 20


class Zeros(io.RawIOBase):
    """``size`` zero bytes, read in chunks (what ``tarfile.addfile`` copies from)."""

    def __init__(self, size: int) -> None:
        self.left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self.left, CHUNK)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def build_bomb(bundle: Path, target: Path, size: int) -> None:
    with gzip.open(target, "wb", compresslevel=9) as gz, tarfile.open(fileobj=gz, mode="w|") as tar:
        for path in sorted(p for p in bundle.iterdir() if p.is_file()):
            info = tarfile.TarInfo(path.name)
            if path.name == "state.sqlite":
                info.size = size
                tar.addfile(info, io.BufferedReader(Zeros(size), CHUNK))
            else:
                info.size = path.stat().st_size
                with path.open("rb") as f:
                    tar.addfile(info, f)


def _bytes_under(*roots: Path) -> int:
    total = 0
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in files:
                with contextlib.suppress(OSError):  # gone between the listing and the look
                    total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=RESULTS / "archive_bomb_probe.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bomb-") as work:
        root = Path(work)
        archive, registry, tmp = root / "bomb.tar.gz", root / "registry", root / "tmp"
        tmp.mkdir()
        build_bomb(args.bundle.absolute(), archive, int(args.gib * (1 << 30)))
        cmd = [sys.executable, "-m", "pipeline.cli.main", "publish", str(archive), "--registry", str(registry)]
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(tmp)}
        load_before = Path("/proc/loadavg").read_text().split()[:3]
        start = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        peak = 0
        while child.poll() is None:
            peak = max(peak, _bytes_under(registry, tmp))
            time.sleep(0.02)
        seconds = time.perf_counter() - start
        output = (child.stdout.read() if child.stdout else "").strip()
        peak = max(peak, _bytes_under(registry, tmp))
        result = {
            "archive_bytes": archive.stat().st_size,
            "inflates_to_bytes": int(args.gib * (1 << 30)),
            "exit": child.returncode,
            "output": output.splitlines()[:3],
            "traceback": "Traceback" in output,
            "seconds": round(seconds, 2),
            "peak_bytes_on_disk": peak,
            "load": [load_before, Path("/proc/loadavg").read_text().split()[:3]],
        }
    print(json.dumps(result, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
