"""Determinism under the host's locale and time zone: same inputs, same bytes, same digest.

Locales are compiled into a private directory with ``localedef`` (Debian's ``locales``
package provides it and the sources) and selected with ``LOCPATH``, so nothing on the
machine changes; the tests skip with the reason when that is not possible here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ("tr_TR", "de_DE")
POPULATE = """
import hashlib, random, sys
from pathlib import Path
from pipeline.data.populate import populate
from pipeline.world.blueprint import load_blueprint
from pipeline.world.schema import build_schema
schema = build_schema(load_blueprint("online_store"), random.Random(0))
path = Path(sys.argv[1])
populate(schema, 0, path)
print(hashlib.sha256(path.read_bytes()).hexdigest())
"""


@pytest.fixture(scope="session")
def locpath(tmp_path_factory: pytest.TempPathFactory) -> Path:
    localedef = shutil.which("localedef")
    sources = Path("/usr/share/i18n/locales")
    if localedef is None or not all((sources / name).is_file() for name in LOCALES):
        pytest.skip("localedef or the tr_TR/de_DE locale sources are missing (apt-get install locales)")
    root = tmp_path_factory.mktemp("locales")
    for name in LOCALES:
        proc = subprocess.run(
            [localedef, "-i", name, "-f", "UTF-8", str(root / f"{name}.UTF-8")], capture_output=True, text=True
        )
        if not (root / f"{name}.UTF-8").is_dir():
            pytest.skip(f"localedef could not compile {name}.UTF-8: {proc.stderr.strip()[:200]}")
    return root


def _env(locpath: Path, lang: str, tz: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    return {**env, "LOCPATH": str(locpath), "LANG": lang, "LC_ALL": lang, "TZ": tz, "PYTHONPATH": str(ROOT)}


def _check_locale_is_active(locpath: Path, lang: str) -> None:
    probe = "import locale; locale.setlocale(locale.LC_ALL, ''); print(locale.setlocale(locale.LC_CTYPE))"
    out = subprocess.run(
        [sys.executable, "-c", probe], env=_env(locpath, lang, "UTC"), capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == lang, f"{lang} did not load: {out.stdout} {out.stderr}"


GENERATE = [sys.executable, "-m", "pipeline.cli.main", "generate", "--domain", "online_store", "--seed", "0"]
GENERATE += ["--no-prefect", "--json"]
SETTINGS = [("C", "UTC"), ("tr_TR.UTF-8", "Europe/Istanbul"), ("de_DE.UTF-8", "America/St_Johns")]


def test_population_is_byte_identical_under_every_locale(locpath: Path, tmp_path: Path) -> None:
    """tr_TR upper-cases 'i' to 'İ': sqlite3 then misses that INSERT writes and commits row by row."""
    digests = {}
    for lang, tz in SETTINGS:
        _check_locale_is_active(locpath, lang)
        proc = subprocess.run(
            [sys.executable, "-c", POPULATE, str(tmp_path / f"{lang}.sqlite")],
            env=_env(locpath, lang, tz),
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        digests[lang] = proc.stdout.strip()
    assert len(set(digests.values())) == 1, digests


@pytest.mark.slow
def test_generate_gives_the_same_bytes_under_every_locale_and_time_zone(locpath: Path, tmp_path: Path) -> None:
    results = {}
    for lang, tz in [*SETTINGS, ("C.UTF-8", "Asia/Kathmandu")]:
        out = tmp_path / lang
        proc = subprocess.run(
            [*GENERATE, "--out", str(out)],
            env=_env(locpath, lang, tz),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        summary = json.loads(proc.stdout)
        bundle = Path(summary["path"])
        results[(lang, tz)] = (summary["digest"], {p.name: p.read_bytes() for p in sorted(bundle.iterdir())})
    (digest, files), *others = results.values()
    for key, (other_digest, other_files) in zip(list(results)[1:], others):
        differing = sorted(n for n in files if files[n] != other_files.get(n))
        assert other_digest == digest and not differing, f"{key}: {other_digest} vs {digest}, files {differing}"
