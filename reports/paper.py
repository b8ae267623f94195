"""The paper's published numbers as data: Tables 1 and 2 and the Figure 1 ratio.

The values live in ``reports/data/paper_tables.json`` (typed from the .tex, with a
citation). :func:`parse_tex_table` re-reads a table from the paper's LaTeX source so
a test can check the typed values against the source digit by digit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA_PATH = Path(__file__).resolve().parent / "data" / "paper_tables.json"

#: policies of Tables 1-2, in column order, as the simulator names them
TABLE_POLICIES = ("cascade-ucb1", "cascade-klucb")
#: the paper's LaTeX macro for each policy column
_MACRO_POLICY = {r"\cascadeucb": "cascade-ucb1", r"\cascadeklucb": "cascade-klucb"}
TABLE_NAMES = ("table1", "table2")


@dataclass(frozen=True)
class PaperCell:
    """One published cell: regret after ``horizon`` steps as ``mean +- se``."""

    table: str
    L: int
    K: int
    delta: float
    policy: str
    mean: float
    se: float


@lru_cache(maxsize=1)
def _raw() -> dict:
    with open(DATA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def citation() -> str:
    """Bibliographic citation of the published numbers."""
    return _raw()["citation"]


def table_meta(name: str) -> dict:
    """Metadata of Table 1 or 2: label, section, order, horizon, runs, p, caption."""
    if name not in TABLE_NAMES:
        raise ValueError(f"unknown paper table {name!r}; allowed: {', '.join(TABLE_NAMES)}")
    return {k: v for k, v in _raw()["tables"][name].items() if k != "rows"}


def paper_table(name: str) -> list[PaperCell]:
    """The cells of Table 1 (``"table1"``, best-first) or Table 2 (``"table2"``, worst-first).

    Returns one :class:`PaperCell` per (row, policy), rows in the paper's order and,
    within a row, cascade-ucb1 then cascade-klucb.
    """
    table_meta(name)  # validates the name
    out = []
    for row in _raw()["tables"][name]["rows"]:
        for pol in TABLE_POLICIES:
            mean, se = row[pol]
            out.append(
                PaperCell(
                    name,
                    int(row["L"]),
                    int(row["K"]),
                    float(row["delta"]),
                    pol,
                    float(mean),
                    float(se),
                )
            )
    return out


def figure1_meta() -> dict:
    """Figure 1 settings (L, K, Delta, p, nu and gamma grids) and the quoted ranked/cascade."""
    return dict(_raw()["figure1"])


def _strip_tex(cell: str) -> str:
    cell = re.sub(r"\\phantom\{[^}]*\}", "", cell)
    return cell.replace("$", "").strip()


def parse_tex_table(tex: str, label: str) -> list[dict]:
    """Parse a results table of the paper's LaTeX source.

    Parameters
    ----------
    tex : str
        The whole LaTeX source.
    label : str
        The table's ``\\label`` (``"tab:regret bounds"`` or ``"tab:worst-first"``).

    Returns
    -------
    list of dict
        One dict per row: ``L``, ``K``, ``delta`` and, per policy column,
        ``(mean, se)`` parsed from ``$mean \\pm se$``.
    """
    blocks = re.findall(r"\\begin\{table\}(.*?)\\end\{table\}", tex, flags=re.S)
    block = next((b for b in blocks if f"\\label{{{label}}}" in b), None)
    if block is None:
        raise ValueError(f"no table labelled {label!r} in the LaTeX source")
    body = re.search(r"\\begin\{tabular\}\{[^}]*\}(.*?)\\end\{tabular\}", block, flags=re.S)
    if body is None:
        raise ValueError(f"table {label!r} has no tabular environment")
    lines = [ln.replace(r"\hline", "").strip() for ln in body.group(1).split(r"\\")]
    lines = [ln for ln in lines if "&" in ln]
    header = [_strip_tex(c) for c in lines[0].split("&")]
    policies = []
    for h in header[3:]:
        if h not in _MACRO_POLICY:
            raise ValueError(f"unknown policy column {h!r} in table {label!r}")
        policies.append(_MACRO_POLICY[h])
    rows = []
    for ln in lines[1:]:
        cells = [_strip_tex(c) for c in ln.split("&")]
        row = {"L": int(cells[0]), "K": int(cells[1]), "delta": float(cells[2])}
        for pol, c in zip(policies, cells[3:], strict=True):
            mean, se = (float(x) for x in c.split(r"\pm"))
            row[pol] = (mean, se)
        rows.append(row)
    return rows
