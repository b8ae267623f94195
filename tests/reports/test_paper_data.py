"""The paper's Tables 1 and 2 as typed in reports/data agree with the LaTeX source."""

from pathlib import Path

import pytest

from cascading_bandits.reports.paper import (
    TABLE_NAMES,
    TABLE_POLICIES,
    citation,
    figure1_meta,
    paper_table,
    parse_tex_table,
    table_meta,
)

TEX = Path("/work/shared/paper/cascading-bandits-icml2015.tex")

TINY = r"""
\begin{table}[t]
  \begin{tabular}{rrr|rr} \hline
    $L$ & $K$ & $\Delta$ & $\cascadeucb$ & $\cascadeklucb$ \\ \hline
    16 & 2 & 0.15 & $1290.1 \pm 11.3$ & $357.9 \pm 5.5\phantom{0}$ \\
    32 & 8 & 0.075 & $2.5 \pm 0.25$ & $1.0 \pm 16.3$ \\ \hline
  \end{tabular}
  \label{tab:x}
\end{table}
"""


def test_parser_on_a_hand_written_table():
    rows = parse_tex_table(TINY, "tab:x")
    assert rows == [
        {
            "L": 16,
            "K": 2,
            "delta": 0.15,
            "cascade-ucb1": (1290.1, 11.3),
            "cascade-klucb": (357.9, 5.5),
        },
        {
            "L": 32,
            "K": 8,
            "delta": 0.075,
            "cascade-ucb1": (2.5, 0.25),
            "cascade-klucb": (1.0, 16.3),
        },
    ]


def test_parser_rejects_unknown_label_and_column():
    with pytest.raises(ValueError, match="no table labelled"):
        parse_tex_table(TINY, "tab:missing")
    with pytest.raises(ValueError, match="unknown policy column"):
        parse_tex_table(TINY.replace(r"\cascadeklucb", r"\combucb"), "tab:x")


@pytest.mark.skipif(not TEX.exists(), reason="paper source not available")
@pytest.mark.parametrize("name", TABLE_NAMES)
def test_typed_tables_match_the_tex(name):
    parsed = parse_tex_table(TEX.read_text(encoding="utf-8"), table_meta(name)["label"])
    typed = paper_table(name)
    assert len(parsed) == 9 and len(typed) == 18
    flat = [(r["L"], r["K"], r["delta"], pol, *r[pol]) for r in parsed for pol in TABLE_POLICIES]
    assert flat == [(c.L, c.K, c.delta, c.policy, c.mean, c.se) for c in typed]


@pytest.mark.skipif(not TEX.exists(), reason="paper source not available")
def test_meta_matches_the_tex():
    tex = TEX.read_text(encoding="utf-8")
    assert "n = 10^5" in table_meta("table1")["caption"] and "$n = 10^5$" in tex
    assert "averaged over $20$ runs" in tex and table_meta("table1")["runs"] == 20
    assert "about three times" in tex and figure1_meta()["ranked_over_cascade"] == 3.0
    assert "ICML 2015" in citation()


def test_unknown_table_rejected():
    with pytest.raises(ValueError, match="allowed: table1, table2"):
        paper_table("table3")
