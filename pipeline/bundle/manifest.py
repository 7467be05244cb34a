"""The manifest of a bundle as typed models: one place that says what each field is.

A manifest crosses every package: the package step writes it, the registry indexes it, the
runtime, the surfaces, the curriculum and the evaluation read it. It is written once here, as
pydantic models with a described field each, and read by attribute (``bundle.manifest.seed``,
``bundle.manifest.counts.tasks``).

Two kinds share :class:`ManifestBase`: :class:`ToolUseManifest` (a world of tables, tools and
tasks) and :class:`ProceduralManifest` (single-turn reasoning items); :data:`Manifest` is either,
told apart by ``kind``. :func:`manifest_from` reads a manifest's JSON object into its model.

The bytes a bundle holds are the contract, so the models change none of them:

* the JSON object back (:meth:`ManifestBase.as_dict`) is exactly the one read or built: fields a
  manifest leaves out stay out (never filled with defaults), ``null`` stays ``null``, and numbers
  keep their type (strict validation, ``int | float`` where a knob may be either: no ``1`` turned
  into ``1.0``), so a built bundle's digest is unchanged and a loaded one re-serialises to the
  bytes it was sealed over;
* unknown fields are kept (``extra="allow"``): a bundle written by a newer synthenv, which may add
  a field, still loads here, and its digest, which covers every field, still matches. A field of
  the wrong type, or a required one missing, is refused, naming the field.

This module imports nothing of how bundles are made (only pydantic), so the runtime can read a
manifest without pulling the build code.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, TypeAdapter, ValidationError

Number = int | float
"""A knob that may be written as either (``scale`` 1 or 1.0): kept as written, since both hash differently."""

JsonObject = dict[str, Any]
"""A JSON object another package summarises into the manifest (realism checks, probe counts, …)."""


class _Record(BaseModel):
    """Strict, immutable, keeps unknown fields: the shared settings of every manifest model."""

    model_config = ConfigDict(extra="allow", frozen=True, strict=True)


class ToolUseKnobs(_Record):
    """The generation knobs of a tool-use world."""

    scale: Number = Field(description="Row-count multiplier applied to every table of the blueprint.")
    rows: int | None = Field(description="Rows of the largest table (`--rows`), or null when `scale` sized them.")
    variant: bool = Field(description="Whether the blueprint was varied by the seed (`--random`).")
    tasks_per_family: int = Field(description="Tasks asked of each task family (before mixing and drops).")
    task_mix: dict[str, dict[str, int]] | None = Field(
        default=None, description="Tasks per family and level, when a curriculum set the mix (absent otherwise)."
    )


class ToolUseCounts(_Record):
    """What a tool-use bundle holds, counted."""

    tables: int = Field(description="Tables in the schema.")
    rows: int = Field(description="Rows in the state, all tables together.")
    rows_per_table: dict[str, int] = Field(description="Rows in the state, per table.")
    tools: int = Field(description="Tools the agent can call.")
    tasks: int = Field(description="Tasks shipped (each proven: reference 1.0, every exploit 0.0).")
    candidates: int = Field(description="Task candidates the families proposed, before drops.")
    dropped: dict[str, int] = Field(description="Candidates dropped, by reason.")
    exploits: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="Per exploit of the library: how many tasks it was tried on and scored."
    )
    task_figures: JsonObject = Field(
        default_factory=dict, description="Task figures (per family, per level, depth, diversity): tasks.stats."
    )


class LineageInputs(_Record):
    """The inputs a tool-use world was generated from: the same inputs give the same bytes."""

    domain: str = Field(description="Domain blueprint the world was made from.")
    seed: int = Field(description="Generation seed.")
    scale: Number = Field(description="Row-count multiplier (see knobs).")
    rows: int | None = Field(description="Rows of the largest table, or null.")
    variant: bool = Field(description="Whether the blueprint was varied by the seed.")
    tasks_per_family: int = Field(description="Tasks asked of each family.")
    clock: str = Field(description="The frozen clock the world was generated at (ISO 8601).")
    task_mix: dict[str, dict[str, int]] | None = Field(
        default=None, description="Tasks per family and level, when set (absent otherwise)."
    )


class ToolUseLineage(_Record):
    """Where a tool-use world came from; deterministic inputs only (run ids live in the registry)."""

    generator: str = Field(description="The generator's name (synthenv).")
    generator_version: str = Field(description="The generator's version.")
    inputs: LineageInputs = Field(description="The generation inputs.")
    parent: str | None = Field(description="The bundle this one follows (`name@X.Y.Z`), or null.")
    llm: JsonObject | None = Field(
        default=None, description="A scenario's model, replies and passes (LLM-designed worlds only; absent otherwise)."
    )


class ProceduralKnobs(_Record):
    """The generation knobs of a procedural dataset."""

    families: list[str] = Field(description="Task families, in the order given.")
    weights: dict[str, Number] = Field(description="Sampling weight per family.")
    level: int | dict[str, int] | None = Field(
        description="Level for every family, per family (missing families at 0), or null (level 0)."
    )
    n: int = Field(description="Items asked for.")
    difficulty: Number | dict[str, Number] | None = Field(
        default=None, description="Continuous difficulty in [0, 5] instead of a level (absent when a level was given)."
    )


class ProceduralCounts(_Record):
    """What a procedural bundle holds, counted."""

    tasks: int = Field(description="Items in tasks.jsonl.")
    per_family: dict[str, int] = Field(description="Items per family.")
    dropped: dict[str, int] = Field(description="Items dropped, by reason (none so far).")


class ProceduralLineage(_Record):
    """Where a procedural dataset came from."""

    families: list[str] = Field(description="Task families.")
    seed: int = Field(description="Generation seed.")
    level: int | dict[str, int] | None = Field(description="Level, as in the knobs.")
    parent: str | None = Field(description="The bundle this one follows (`name@X.Y.Z`), or null.")
    difficulty: Number | dict[str, Number] | None = Field(
        default=None, description="Continuous difficulty, as in the knobs (absent otherwise)."
    )


class Calibration(_Record):
    """Measured difficulty an evaluation wrote back (``pipeline.evaluate.calibrate``)."""

    format: int = Field(description="Calibration format (1).")
    bundle: dict[str, str] = Field(description="The evaluated bundle: its `ref` and `digest`.")
    runs: list[JsonObject] = Field(description="Per evaluation: policy, config, figures per family x level.")
    tasks: dict[str, JsonObject] = Field(description="Per task: family, level, observed passes, pass rate, difficulty.")


class ManifestBase(_Record):
    """The fields every bundle's manifest has, and the sealed ones the bundle format computes."""

    name: str = Field(description="Bundle name (`[a-z0-9._-]`), the registry's key with the version.")
    version: str = Field(description="Semantic version X.Y.Z; a published version is never rewritten.")
    title: str = Field(description="Human title (the world's or the dataset's).")
    description: str = Field(description="One or two sentences on what the bundle is.")
    seed: int = Field(description="Generation seed: the same inputs and seed give the same digest.")
    frozen_clock: str | None = Field(description="The world's 'now' (ISO 8601); null for procedural datasets.")
    generator_version: str = Field(description="The version of synthenv (and of the generators) that built it.")
    calibration: Calibration | None = Field(
        default=None, description="Measured difficulty written back by `synthenv calibrate` (absent otherwise)."
    )
    # Sealed by pipeline.bundle.format.write_bundle; absent from a manifest not yet written.
    format: int = Field(default=0, description="Bundle format (2: the digest covers every manifest field).")
    files: dict[str, str] = Field(default_factory=dict, description="Every other file of the bundle -> its sha256.")
    sizes: dict[str, int] = Field(default_factory=dict, description="Every listed file -> its size in bytes.")
    fields: dict[str, str] = Field(default_factory=dict, description="Every other manifest field -> its sha256.")
    digest: str = Field(default="", description="sha256 of the canonical manifest minus this field.")

    _view: JsonObject | None = PrivateAttr(default=None)

    def as_dict(self) -> JsonObject:
        """The JSON object this manifest is: exactly the fields it was built or read with.

        Cached (the model is immutable); treat it as read-only.
        """
        if self._view is None:
            self._view = self.model_dump(mode="json", exclude_unset=True)
        return self._view

    def content(self) -> JsonObject:
        """The fields a writer supplies: :meth:`as_dict` without the sealed ones."""
        return {k: v for k, v in self.as_dict().items() if k not in SEALED}

    def with_changes(self, **changes: Any) -> Self:
        """A validated copy, unsealed, with ``changes`` applied (fields given as models or their JSON)."""
        return self.model_validate({**self.content(), **{k: _plain(v) for k, v in changes.items()}})

    def as_tool_use(self) -> ToolUseManifest:
        """This manifest as a tool-use one, or ValueError naming the kind it is."""
        if not isinstance(self, ToolUseManifest):
            raise ValueError(
                f"{self.name}@{self.version} is a {getattr(self, 'kind', None)!r} bundle, not a tool-use one"
            )
        return self

    def as_procedural(self) -> ProceduralManifest:
        """This manifest as a procedural one, or ValueError naming the kind it is."""
        if not isinstance(self, ProceduralManifest):
            raise ValueError(
                f"{self.name}@{self.version} is a {getattr(self, 'kind', None)!r} bundle, not a procedural one"
            )
        return self

    # Transitional, for readers not yet converted to attributes: a field's JSON value by its key.
    def get(self, key: str, default: Any = None) -> Any:
        """The JSON value of field ``key`` (nested models as plain objects), or ``default``."""
        return self.as_dict().get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.as_dict()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.as_dict()


def _plain(value: Any) -> Any:
    """Models inside ``value`` as their JSON objects (so a changed copy validates as read from a file)."""
    if isinstance(value, _Record):
        return value.model_dump(mode="json", exclude_unset=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


class ToolUseManifest(ManifestBase):
    """A tool-use world: a database, tools over it and proven tasks."""

    kind: Literal["tool_use"] = Field(description="Which kind of bundle: a tool-use world.")
    domain: str = Field(description="Domain blueprint (`synthenv domains`) or a scenario's slug.")
    knobs: ToolUseKnobs = Field(description="Generation knobs.")
    counts: ToolUseCounts = Field(description="What the bundle holds, counted.")
    realism: JsonObject = Field(description="Realism checks run on the state, per kind: checks, failed, rows.")
    reward_weights: dict[str, Number] = Field(
        description="How a shaping wrapper may combine the reward components (outcome alone decides success)."
    )
    tool_probes: JsonObject = Field(description="Probe calls every shipped tool passed, by case.")
    lineage: ToolUseLineage = Field(description="Generator, inputs and parent.")
    policy: str | None = Field(default=None, description="The world's numbered rules as the agent reads them.")
    policy_rules: JsonObject | None = Field(
        default=None, description="The same rules as data (the clock and each rule), for judging requests."
    )


class ProceduralManifest(ManifestBase):
    """A procedural dataset: single-turn items with exact answers."""

    kind: Literal["procedural"] = Field(description="Which kind of bundle: a procedural dataset.")
    knobs: ProceduralKnobs = Field(description="Generation knobs.")
    counts: ProceduralCounts = Field(description="What the bundle holds, counted.")
    lineage: ProceduralLineage = Field(description="Families, seed, level and parent.")


Manifest = ToolUseManifest | ProceduralManifest
"""A bundle's manifest, of either kind (``kind`` tells them apart)."""

SEALED = ("format", "files", "sizes", "fields", "digest")
"""Manifest fields :func:`pipeline.bundle.format.write_bundle` computes; whatever a caller passes is replaced."""

_KINDS = ("tool_use", "procedural")
_ADAPTER: TypeAdapter[Manifest] = TypeAdapter(Annotated[Manifest, Field(discriminator="kind")])


class ManifestError(ValueError):
    """A manifest's JSON does not fit its model; the message names each field that does not."""


def manifest_from(data: Any) -> Manifest:
    """The model of a manifest's JSON object, or :class:`ManifestError` naming the fields that do not fit."""
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        raise ManifestError(_describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    """``field 'counts.tasks': Input should be a valid integer (got '3')``, one per error, at most five."""
    parts = []
    for err in exc.errors()[:5]:
        loc = [str(p) for p in err["loc"]]
        if loc and loc[0] in _KINDS:  # a discriminated union puts the kind's tag first: it is not a field
            loc = loc[1:]
        where = ".".join(loc) or "(the manifest)"
        got = "" if err["type"] == "missing" else f" (got {str(err.get('input'))[:60]!r})"
        if err["type"] in ("union_tag_invalid", "union_tag_not_found"):  # the kind itself is wrong or absent
            where, got = "kind", ""
        parts.append(f"manifest field {where!r}: {err['msg']}{got}")
    more = len(exc.errors()) - 5
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
