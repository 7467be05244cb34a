"""Values by semantic type, vectorised: numpy draws over pools built from Faker's data.

Calling Faker once per value costs 10-400 µs (a million names would take minutes), so
each vocabulary (first names with their frequencies, last names, street suffixes,
company suffixes, lorem words, jobs, countries...) is read once from Faker's en_US
providers and sampled with a numpy generator seeded per column. Strings are then put
together with list comprehensions over index arrays: about a microsecond a value.

Distributions follow real data: name frequencies as in Faker's census weights, a few
cities and countries much more common than the rest (Zipf), log-normal money with
charm prices, J-shaped ratings, small quantities far more common than large ones.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from pipeline.data import wordlists

Array = np.ndarray


@dataclass(frozen=True)
class Vocab:
    """A list of strings with relative frequencies."""

    words: tuple[str, ...]
    cum: Array
    """Cumulative weights, for inverse-CDF sampling with ``searchsorted``."""

    @classmethod
    def of(cls, words: Collection[str], weights: Sequence[float] | Array | None = None) -> Vocab:
        w = np.ones(len(words)) if weights is None else np.asarray(weights, dtype=float)
        return cls(tuple(words), np.cumsum(w))

    def indices(self, g: np.random.Generator, n: int) -> Array:
        return _inverse_cdf(self.cum, g, n)

    def draw(self, g: np.random.Generator, n: int) -> Array:
        return self.array[self.indices(g, n)]

    @property
    def array(self) -> Array:
        return _object_array(self.words)


def _inverse_cdf(cum: Array, g: np.random.Generator, n: int) -> Array:
    return np.searchsorted(cum, g.random(n) * cum[-1], side="right").clip(0, len(cum) - 1)


def weighted_indices(g: np.random.Generator, weights: Sequence[float] | Array, n: int) -> Array:
    """``n`` indices drawn with the given relative weights."""
    return _inverse_cdf(np.cumsum(np.asarray(weights, dtype=float)), g, n)


@cache
def _object_array(words: tuple[str, ...]) -> Array:
    a = np.empty(len(words), dtype=object)
    a[:] = words
    return a


def zipf(n: int, s: float = 1.0) -> Array:
    return 1.0 / np.arange(1, n + 1) ** s


@dataclass(frozen=True)
class Vocabularies:
    first: Vocab
    last: Vocab
    street: Vocab
    street_suffix: Vocab
    city_prefix: Vocab
    city_suffix: Vocab
    company_suffix: Vocab
    catch: tuple[Vocab, Vocab, Vocab]
    words: Vocab
    jobs: Vocab
    countries: Vocab
    colors: Vocab
    email_domains: Vocab
    tlds: Vocab


@cache
def vocabularies() -> Vocabularies:
    """Faker's en_US data, read once per process (no Faker calls per value)."""
    from faker.providers.address.en_US import Provider as Address
    from faker.providers.color.en_US import Provider as Color
    from faker.providers.company.en_US import Provider as Company
    from faker.providers.internet.en_US import Provider as Internet
    from faker.providers.job.en_US import Provider as Job
    from faker.providers.lorem.en_US import Provider as Lorem
    from faker.providers.person.en_US import Provider as Person

    first = {**Person.first_names_female, **Person.first_names_male}
    last = Person.last_names
    streets = sorted({*Person.last_names, *Person.first_names_male, *Person.first_names_female})
    countries = list(Address.countries)
    # The most populous and most often listed countries first, so Zipf weights land on them.
    common = [
        "United States of America",
        "Canada",
        "United Kingdom",
        "Germany",
        "France",
        "Mexico",
        "India",
        "Australia",
        "Spain",
        "Italy",
        "Brazil",
        "Japan",
        "Netherlands",
        "Ireland",
    ]
    countries = [c for c in common if c in countries] + [c for c in countries if c not in common]
    words = sorted({w for w in Lorem.word_list if len(w) > 3 and w.isalpha()})
    tlds = sorted(set(Internet.tlds))
    return Vocabularies(
        first=Vocab.of(list(first), list(first.values())),
        last=Vocab.of(list(last), list(last.values())),
        street=Vocab.of(streets),
        street_suffix=Vocab.of(Address.street_suffixes, zipf(len(Address.street_suffixes), 0.7)),
        city_prefix=Vocab.of(Address.city_prefixes),
        city_suffix=Vocab.of(Address.city_suffixes),
        company_suffix=Vocab.of(Company.company_suffixes),
        catch=(
            Vocab.of(Company.catch_phrase_words[0]),
            Vocab.of(Company.catch_phrase_words[1]),
            Vocab.of(Company.catch_phrase_words[2]),
        ),
        words=Vocab.of(words),
        jobs=Vocab.of(sorted(set(Job.jobs))),
        countries=Vocab.of(countries, zipf(len(countries), 1.1)),
        colors=Vocab.of(list(Color.all_colors)),
        email_domains=Vocab.of(wordlists.DOMAINS, wordlists.DOMAIN_WEIGHTS),
        tlds=Vocab.of(tlds, [10.0 if t == "com" else 1.0 for t in tlds]),
    )


def cat(*parts: Array | Sequence[str]) -> list[str]:
    """Element-wise string concatenation of equally long sequences."""
    lists = [p.tolist() if isinstance(p, np.ndarray) else list(p) for p in parts]
    return ["".join(t) for t in zip(*lists)]


def as_objects(values: Sequence[str] | Array) -> Array:
    a = np.empty(len(values), dtype=object)
    a[:] = values
    return a


def make_unique(values: Array, sep: str = " ") -> Array:
    """Keep first occurrences; later duplicates get a number (before the '@' of an email)."""
    out = values.tolist()
    seen: set[str] = set()
    last: dict[str, int] = {}
    for i, v in enumerate(out):
        if v in seen:
            # Every number below the last one given to this value was taken then and still is: start after it.
            k = last.get(v, 1) + 1
            base = v
            while True:
                if "@" in v:
                    local, domain = v.split("@", 1)
                    candidate = f"{local}{k}@{domain}"
                else:
                    candidate = f"{v}{sep}{k}"
                if candidate not in seen:
                    break
                k += 1
            last[base] = k
            out[i] = candidate
            v = candidate
        seen.add(v)
    return as_objects(out)


def distinct_draw(g: np.random.Generator, n: int, draw, rounds: int = 6) -> Array:
    """Draw ``n`` values, redrawing duplicates a few times: names of things stay mostly unique
    where the space allows, while their frequencies still follow the vocabulary."""
    values = as_objects(draw(n))
    for _ in range(rounds):
        dup = duplicates(values)
        k = int(dup.sum())
        if k == 0:
            break
        values[dup] = as_objects(draw(k))
    return values


def duplicates(values: Array) -> Array:
    """True where a value already occurred earlier (a dict pass: faster than sorting strings)."""
    seen: dict[object, None] = {}
    flags = np.zeros(len(values), dtype=bool)
    for i, v in enumerate(values.tolist()):
        if v in seen:
            flags[i] = True
        else:
            seen[v] = None
    return flags


# -- text -----------------------------------------------------------------------------------


def person_names(g: np.random.Generator, n: int) -> list[str]:
    v = vocabularies()
    return cat(v.first.draw(g, n), [" "] * n, v.last.draw(g, n))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


_SLUG_TABLE = str.maketrans(dict.fromkeys(" '-.,&"))


def emails_from_names(g: np.random.Generator, names: Array) -> list[str]:
    """``jane.doe@gmail.com`` for Jane Doe: an email agrees with the person it belongs to."""
    n = len(names)
    v = vocabularies()
    style = g.integers(0, 5, n).tolist()
    digits = g.integers(1, 99, n).tolist()
    domains = v.email_domains.draw(g, n).tolist()
    out = []
    for name, s, d, dom in zip(names.tolist(), style, digits, domains):
        parts = str(name).lower().split(" ")
        first, last = parts[0].translate(_SLUG_TABLE), parts[-1].translate(_SLUG_TABLE)
        if s == 0:
            local = f"{first}.{last}"
        elif s == 1:
            local = f"{first}{last}"
        elif s == 2:
            local = f"{first[:1]}{last}"
        elif s == 3:
            local = f"{first}_{last}"
        else:
            local = f"{first}.{last}{d}"
        out.append(f"{local}@{dom}")
    return out


def emails_from_companies(g: np.random.Generator, companies: Array) -> list[str]:
    roles = np.array(wordlists.ROLES, dtype=object)[g.integers(0, len(wordlists.ROLES), len(companies))].tolist()
    return [f"{r}@{_slug(str(c).split(' ')[0].split(',')[0]) or 'mail'}.com" for r, c in zip(roles, companies.tolist())]


def emails(g: np.random.Generator, n: int) -> list[str]:
    return emails_from_names(g, as_objects(person_names(g, n)))


def usernames(g: np.random.Generator, n: int) -> list[str]:
    v = vocabularies()
    firsts, lasts = v.first.draw(g, n).tolist(), v.last.draw(g, n).tolist()
    nums = g.integers(1, 999, n).tolist()
    style = g.integers(0, 3, n).tolist()
    out = []
    for f, la, k, s in zip(firsts, lasts, nums, style):
        f, la = f.lower(), la.lower()
        out.append(f"{f[0]}{la}" if s == 0 else f"{f}.{la}" if s == 1 else f"{f}{k}")
    return out


def phones(g: np.random.Generator, n: int) -> list[str]:
    area, mid, end = (
        g.integers(201, 990, n).tolist(),
        g.integers(200, 1000, n).tolist(),
        g.integers(0, 10000, n).tolist(),
    )
    return [f"+1-{a}-{m}-{e:04d}" for a, m, e in zip(area, mid, end)]


def companies(g: np.random.Generator, n: int) -> list[str]:
    v = vocabularies()
    form = g.integers(0, 3, n).tolist()
    a, b, c = v.last.draw(g, n).tolist(), v.last.draw(g, n).tolist(), v.last.draw(g, n).tolist()
    suffix = v.company_suffix.draw(g, n).tolist()
    return [
        f"{x} {s}" if f == 0 else f"{x}-{y}" if f == 1 else f"{x}, {y} and {z}"
        for f, x, y, z, s in zip(form, a, b, c, suffix)
    ]


def addresses(g: np.random.Generator, n: int) -> list[str]:
    v = vocabularies()
    numbers = (g.lognormal(5.5, 1.2, n).astype(np.int64) % 99999 + 1).tolist()
    return [
        f"{k} {s} {x}" for k, s, x in zip(numbers, v.street.draw(g, n).tolist(), v.street_suffix.draw(g, n).tolist())
    ]


@cache
def _cities(seed: int = 7) -> Vocab:
    """A fixed gazetteer of 400 towns (Faker's formats), a few of them big."""
    v = vocabularies()
    g = np.random.default_rng(seed)
    k = 600
    form = g.integers(0, 4, k).tolist()
    pre, first = v.city_prefix.draw(g, k).tolist(), v.first.draw(g, k).tolist()
    last, suf = v.last.draw(g, k).tolist(), v.city_suffix.draw(g, k).tolist()
    names = [
        f"{p} {f}{s}" if m == 0 else f"{p} {f}" if m == 1 else f"{f}{s}" if m == 2 else f"{la}{s}"
        for m, p, f, la, s in zip(form, pre, first, last, suf)
    ]
    unique = list(dict.fromkeys(names))[:400]
    return Vocab.of(unique, zipf(len(unique), 1.0))


def cities(g: np.random.Generator, n: int) -> Array:
    return _cities().draw(g, n)


def cities_list() -> tuple[str, ...]:
    """Every town :func:`cities` draws from."""
    return _cities().words


def postcodes(g: np.random.Generator, n: int) -> list[str]:
    return [f"{p:05d}" for p in g.integers(1001, 99951, n).tolist()]


def product_names(g: np.random.Generator, n: int) -> list[str]:
    a = np.array(wordlists.ADJECTIVES, dtype=object)[g.integers(0, len(wordlists.ADJECTIVES), n)]
    m = np.array(wordlists.MATERIALS, dtype=object)[g.integers(0, len(wordlists.MATERIALS), n)]
    o = np.array(wordlists.NOUNS, dtype=object)[g.integers(0, len(wordlists.NOUNS), n)]
    s = np.array(wordlists.MODELS, dtype=object)[g.integers(0, len(wordlists.MODELS), n)]
    return cat(a, [" "] * n, m, [" "] * n, o, s)


def titles(g: np.random.Generator, n: int) -> list[str]:
    a, b, c = vocabularies().catch
    return [
        f"{x.capitalize()} {y} {z}"
        for x, y, z in zip(a.draw(g, n).tolist(), b.draw(g, n).tolist(), c.draw(g, n).tolist())
    ]


def words(g: np.random.Generator, n: int) -> list[str]:
    return [w.capitalize() for w in vocabularies().words.draw(g, n).tolist()]


@cache
def _sentences(seed: int = 11, k: int = 3000) -> Vocab:
    g = np.random.default_rng(seed)
    w = vocabularies().words
    lengths = g.integers(5, 13, k).tolist()
    out = []
    for length in lengths:
        ws = w.draw(g, length).tolist()
        out.append(" ".join(ws).capitalize() + ".")
    return Vocab.of(out)


def sentences(g: np.random.Generator, n: int) -> Array:
    return _sentences().draw(g, n)


def colors(g: np.random.Generator, n: int) -> Array:
    return vocabularies().colors.draw(g, n)


def jobs(g: np.random.Generator, n: int) -> Array:
    return vocabularies().jobs.draw(g, n)


def countries(g: np.random.Generator, n: int) -> Array:
    return vocabularies().countries.draw(g, n)


def urls(g: np.random.Generator, n: int) -> list[str]:
    v = vocabularies()
    hosts = v.last.draw(g, n).tolist()
    tlds = v.tlds.draw(g, n).tolist()
    paths = v.words.draw(g, n).tolist()
    return [f"https://www.{h.lower()}.{t}/{p}" for h, t, p in zip(hosts, tlds, paths)]


def plates(g: np.random.Generator, n: int) -> list[str]:
    letters = np.array(list("ABCDEFGHJKLMNPRSTUVWXYZ"), dtype=object)
    a, b, c = (letters[g.integers(0, len(letters), n)].tolist() for _ in range(3))
    nums = g.integers(1000, 10000, n).tolist()
    return [f"{x}{y}{z}-{k}" for x, y, z, k in zip(a, b, c, nums)]


def sequential_numbers(g: np.random.Generator, n: int, width: int) -> Array:
    """``n`` distinct numbers of ``width`` digits, increasing: codes issued in order, with gaps."""
    low, high = 10 ** (width - 1), 10**width
    return np.sort(g.choice(high - low, size=n, replace=False)) + low


def codes(g: np.random.Generator, n: int, prefix: str) -> list[str]:
    width = max(6, len(str(n * 10)))
    return [f"{prefix}-{v}" for v in sequential_numbers(g, n, width).tolist()]


def isbns(g: np.random.Generator, n: int) -> list[str]:
    """Valid ISBN-13s (978 prefix, correct check digit)."""
    body = 978 * 10**9 + sequential_numbers(g, n, 9) % 10**9
    digits = np.stack([(body // 10**k) % 10 for k in range(11, -1, -1)], axis=1)
    weights = np.array([1, 3] * 6)
    check = (10 - (digits * weights).sum(axis=1) % 10) % 10
    return [f"{str(b)[:3]}-{str(b)[3:]}{c}" for b, c in zip(body.tolist(), check.tolist())]


def file_names(g: np.random.Generator, n: int) -> list[str]:
    kinds = g.integers(0, len(wordlists.FILE_KINDS), n).tolist()
    nums = sequential_numbers(g, n, max(5, len(str(n * 10)))).tolist()
    g.shuffle(nums)
    return [f"{wordlists.FILE_KINDS[k][1]}_{num}.{wordlists.FILE_KINDS[k][0]}" for k, num in zip(kinds, nums)]


# -- numbers --------------------------------------------------------------------------------


def lognormal_between(g: np.random.Generator, n: int, low: float, high: float) -> Array:
    """Log-normal with about 99.7 % of its mass between ``low`` and ``high``, clipped to them."""
    low = max(low, 0.01)
    high = max(high, low * 1.01)
    mu = (np.log(low) + np.log(high)) / 2
    sigma = (np.log(high) - np.log(low)) / 6
    return np.clip(g.lognormal(mu, sigma, n), low, high)


def money(g: np.random.Generator, n: int, low: float, high: float, charm: bool) -> Array:
    values = np.round(lognormal_between(g, n, low, high), 2)
    if charm:
        # Shelf prices end in .99 (or .49) far more often than not.
        ending = np.where(g.random(n) < 0.7, 0.99, 0.49)
        charmed = np.floor(values) + ending
        ok = (charmed >= low) & (charmed <= high) & (g.random(n) < 0.8)
        values = np.where(ok, charmed, values)
    return np.round(values, 2)


def ratings(g: np.random.Generator, n: int, low: int, high: int) -> Array:
    """J-shaped, like real reviews: mostly top marks, then the bottom mark, then the middle."""
    span = high - low + 1
    weights = np.array([8.0, 4.0, 7.0, 21.0, 60.0]) if span == 5 else 1.0 + np.arange(span) ** 2
    return low + weighted_indices(g, weights, n)


def small_skewed(g: np.random.Generator, n: int, low: int, high: int) -> Array:
    """Geometric-looking: small counts common, large ones rare (quantities, renewals)."""
    span = high - low
    if span <= 0:
        return np.full(n, low, dtype=np.int64)
    return low + np.minimum(span, g.exponential(max(span, 1) / 3.0, n).astype(np.int64))


def wide_integers(g: np.random.Generator, n: int, low: int, high: int) -> Array:
    """A broad hump over the range (page counts, floor areas, capacities)."""
    return np.clip(np.round(low + (high - low) * g.beta(2.0, 3.0, n)), low, high).astype(np.int64)
