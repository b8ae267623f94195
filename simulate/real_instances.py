"""Real instances: click-model parameters fitted on public click logs, by name.

The data (package data ``simulate/data/click_models/``, MIT licence, see its ``NOTICE.md``)
are position-based models (PBM) fitted with PyClick on the sessions of 60 queries of the
Yandex personalized web search challenge (Kaggle, 2013) and 8 queries of the KDD Cup 2012
track 2 (ads), as shipped by the repository gaudel/ranking_bandits of Gauthier, Gaudel,
Fromont and Lompo (ICML 2021) and Gauthier, Gaudel and Fromont (IDA 2021). Per query:
``thetas``, the attraction probability of each document, and ``kappas``, the examination
probability of each displayed position.

Names
-----
``yandex:<query>``, ``kdd:<query>``
    The whole fitted query: item ``e`` is the e-th document of the file (``weights`` =
    its ``thetas`` as given), ``kappa`` = the ``kappas`` of positions 1, 2, ... as fitted
    (not monotone for any Yandex query), default ``K`` = the number of positions (Yandex
    10, KDD 3). ``<query>`` is the query id of the logs (the file's key).
``yandex:<query>:top``, ``kdd:<query>:top``
    The reduction of the source's experiments (``set_env_Yandex``): the 10 most attractive
    documents sorted by decreasing attraction (item 0 is the most attractive; all of them
    when there are fewer) and the 5 largest examination probabilities sorted decreasingly
    (all 3 for KDD, which the source uses whole), default ``K`` = the number of positions
    kept.

A name is case-insensitive in its source and ``top`` parts. :func:`real_instance_names`
lists every usable name; two Yandex queries (``7435209``, ``8354851``) hold an attraction
value above 1 in the data and are refused with a ValueError saying so.

:func:`parse_instance_name` is the one entry point for a name given on a command line
(``--instance yandex:4102451:top``): ``(weights, kappa, K, label)``. A PBM cell takes both
``weights`` and ``kappa``; the cascade, DBN and DCM models take ``weights`` as their
attraction probabilities (:func:`simulate.experiments.instance_cell`, :func:`simulate.run`).
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "RealInstance",
    "real_instance",
    "real_instance_names",
    "parse_instance_name",
    "DATA_DIR",
    "SOURCES",
    "TOP_ITEMS",
    "TOP_POSITIONS",
]

#: where the shipped parameter files are
DATA_DIR = Path(__file__).resolve().parent / "data" / "click_models"

#: source name -> (file, SHA-256 of the file as shipped, description)
SOURCES = {
    "yandex": (
        "param_Yandex.txt",
        "23477b0aad669ea37f3574f87f53e947f7b3d5b0035c00124349c91e61f27686",
        "Yandex personalized web search challenge (2013), PBM fitted with PyClick",
    ),
    "kdd": (
        "param_KDD.txt",
        "ab447d40da248d6d6d1b5b76fc1ed1f9691548811395693bd433edf2de335902",
        "KDD Cup 2012 track 2 (ads), PBM fitted with PyClick",
    ),
}

#: the ``:top`` reduction (Gauthier et al.'s experiments): items and positions kept
TOP_ITEMS, TOP_POSITIONS = 10, 5

_HOW_TO_LIST = (
    "names are 'yandex:<query>' or 'kdd:<query>', optionally followed by ':top'; list them "
    "with cascading_bandits.simulate.real_instances.real_instance_names()"
)


@dataclass(frozen=True)
class RealInstance:
    """One named real instance.

    Attributes
    ----------
    name : str
        Canonical name, e.g. ``"yandex:4102451:top"``.
    source, query : str
        ``"yandex"`` or ``"kdd"``, and the query id.
    index : int
        The query's position in the source file (the query number of the source's
        experiments: ``--Yandex 0`` is the first query).
    top : bool
        Whether this is the ``:top`` reduction.
    weights : tuple of float, shape (L,)
        Attraction probabilities ``w`` (the fitted ``thetas``).
    kappa : tuple of float, shape (P,)
        Examination probabilities of positions 1..P (the fitted ``kappas``).
    K : int
        Default list size: P.
    description : str
    """

    name: str
    source: str
    query: str
    index: int
    top: bool
    weights: tuple
    kappa: tuple
    K: int
    description: str

    @property
    def L(self) -> int:
        return len(self.weights)


@functools.cache
def _load(source: str) -> dict:
    """The source's JSON map query -> {"thetas", "kappas"}, checked against its SHA-256."""
    file, digest, _ = SOURCES[source]
    raw = (DATA_DIR / file).read_bytes()
    if hashlib.sha256(raw).hexdigest() != digest:
        raise ValueError(
            f"{DATA_DIR / file} is not the file shipped with the package (SHA-256 differs); "
            "reinstall the package"
        )
    return json.loads(raw)


def _problem(params) -> str | None:
    """Why a query's parameters are not probabilities (None if they are)."""
    for what, values in (("attraction", params["thetas"]), ("examination", params["kappas"])):
        # NaN fails 0 <= x <= 1 too
        bad = [
            x
            for x in values
            if isinstance(x, bool) or not (isinstance(x, (int, float)) and 0 <= x <= 1)
        ]
        if bad:
            return f"an {what} value {bad[0]!r} outside [0, 1] in the source data"
    return None


def _split(text):
    if not isinstance(text, str):
        raise ValueError(f"a real instance name must be a string; {_HOW_TO_LIST}")
    parts = text.strip().split(":")
    if len(parts) not in (2, 3) or parts[0].lower() not in SOURCES or not parts[1]:
        raise ValueError(f"unknown real instance {text!r}; {_HOW_TO_LIST}")
    if len(parts) == 3 and parts[2].lower() != "top":
        raise ValueError(
            f"unknown real instance {text!r}: the only suffix is ':top' (the 10 most attractive "
            f"documents and the 5 most examined positions); {_HOW_TO_LIST}"
        )
    return parts[0].lower(), parts[1], len(parts) == 3


def real_instance(name: str) -> RealInstance:
    """The real instance called ``name`` (module docstring); ValueError for an unknown name
    (saying how to list the names) or a query whose data are not probabilities."""
    source, query, top = _split(name)
    data = _load(source)
    if query not in data:
        raise ValueError(
            f"unknown real instance {name!r}: no query {query!r} in the {source} data "
            f"({len(data)} queries, e.g. {source}:{next(iter(data))}); {_HOW_TO_LIST}"
        )
    params = data[query]
    why = _problem(params)
    if why is not None:
        raise ValueError(f"real instance {name!r} is not usable: {why}")
    w = [float(x) for x in params["thetas"]]
    kappa = [float(x) for x in params["kappas"]]
    if top:
        w = sorted(w, reverse=True)[:TOP_ITEMS]
        kappa = sorted(kappa, reverse=True)[:TOP_POSITIONS]
    K = min(len(kappa), len(w))
    canonical = f"{source}:{query}" + (":top" if top else "")
    index = list(data).index(query)
    what = (
        f"{min(TOP_ITEMS, len(params['thetas']))} most attractive documents (sorted), "
        f"{len(kappa)} most examined positions (sorted)"
        if top
        else f"{len(w)} documents, {len(kappa)} positions as fitted"
    )
    desc = f"{SOURCES[source][2]}: query {query} (number {index} of the file), {what}"
    return RealInstance(canonical, source, query, index, top, tuple(w), tuple(kappa), K, desc)


def real_instance_names(source: str | None = None, top: bool | None = None) -> tuple:
    """Every usable real instance name, in the files' order, whole query before ``:top``.

    ``source`` (``"yandex"`` / ``"kdd"``) and ``top`` (True / False) filter the list.
    """
    if source is not None and source not in SOURCES:
        raise ValueError(f"unknown source {source!r}; allowed: {', '.join(SOURCES)}")
    if top not in (None, True, False):
        raise ValueError(f"top must be True, False or None, got {top!r}")
    out = []
    for src in SOURCES if source is None else (source,):
        for query, params in _load(src).items():
            if _problem(params) is not None:
                continue
            for is_top in (False, True):
                if top is None or top == is_top:
                    out.append(f"{src}:{query}" + (":top" if is_top else ""))
    return tuple(out)


def parse_instance_name(text: str) -> tuple:
    """``(weights, kappa, K, label)`` of a real instance name (module docstring).

    Returns
    -------
    weights : tuple of float, shape (L,)
        Attraction probabilities.
    kappa : tuple of float, shape (P,)
        Examination probabilities of positions 1..P (the PBM's; other models ignore them).
    K : int
        The default list size, P.
    label : str
        The canonical name (e.g. ``"yandex:4102451:top"``), for cell ids and legends.
    """
    inst = real_instance(text)
    return inst.weights, inst.kappa, inst.K, inst.name
