"""The cached catalog index: the same rows as parsing every blueprint, never stale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from pipeline.world import catalog
from pipeline.world.blueprint import list_domains, load_blueprint
from pipeline.world.yamlfile import SafeLoader, load_yaml


def test_index_matches_blueprints_and_is_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(catalog.CACHE_ENV, str(tmp_path))
    first = catalog.catalog_index()
    assert [r["name"] for r in first] == list_domains()
    for row in first:
        bp = load_blueprint(row["name"])
        assert (row["title"], row["entities"], row["operations"]) == (bp.title, len(bp.entities), len(bp.operations))
    files = list(tmp_path.glob("catalog-*.json"))
    assert len(files) == 1
    # A second call reads the file: prove it by planting a marker in a valid row.
    rows = json.loads(files[0].read_text(encoding="utf-8"))
    rows[0]["title"] = "from the cache"
    files[0].write_text(json.dumps(rows), encoding="utf-8")
    assert catalog.catalog_index()[0]["title"] == "from the cache"


def test_a_changed_blueprint_changes_the_fingerprint(tmp_path: Path) -> None:
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text("name: a\n", encoding="utf-8")
    b.write_text("name: b\n", encoding="utf-8")
    before = catalog._fingerprint([a, b])
    b.write_text("name: b2\n", encoding="utf-8")
    assert catalog._fingerprint([a, b]) != before
    assert catalog._fingerprint([a]) != catalog._fingerprint([a, b])


def test_broken_cache_file_falls_back_to_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(catalog.CACHE_ENV, str(tmp_path))
    good = catalog.catalog_index()
    for path in tmp_path.glob("catalog-*.json"):
        path.write_text('[{"name": 1}]', encoding="utf-8")
    assert catalog.catalog_index() == good


def test_c_loader_reads_every_template_as_the_python_loader_does() -> None:
    root = Path(catalog.domains_dir()).parent
    files = sorted(root.rglob("*.yaml"))
    assert len(files) > 37
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert load_yaml(text) == yaml.load(text, Loader=yaml.SafeLoader), path
    assert SafeLoader.__name__ in ("CSafeLoader", "SafeLoader")
