"""The paper's Tables 1 and 2 as typed in reports/data agree with the paper.

The paper's two result tables are carried here verbatim (``PAPER_TABLES_TEX``: the LaTeX of
Tables 1 and 2 of Kveton et al., ICML 2015, Section 5, copied once from the paper's source),
so the check runs everywhere and needs nothing outside the project.
"""

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

#: Tables 1 and 2 of the paper, verbatim from its LaTeX source (Section 5)
PAPER_TABLES_TEX = r"""
\begin{table}[t]
  \centering
  {\small
  \begin{tabular}{rrr|rr} \hline
    $L$ & $K$ & $\Delta$ & $\cascadeucb$ & $\cascadeklucb$ \\ \hline
    16 & 2 & 0.15 & $1290.1 \pm 11.3$ & $357.9 \pm 5.5\phantom{0}$ \\
    16 & 4 & 0.15 & $986.8 \pm 10.8$ & $275.1 \pm 5.8\phantom{0}$ \\
    16 & 8 & 0.15 & $574.8 \pm 7.9\phantom{0}$ & $149.1 \pm 3.2\phantom{0}$ \\
    32 & 2 & 0.15 & $2695.9 \pm 19.8$ & $761.2 \pm 10.4$ \\
    32 & 4 & 0.15 & $2256.8 \pm 12.8$ & $633.2 \pm 7.0\phantom{0}$ \\
    32 & 8 & 0.15 & $1581.0 \pm 20.3$ & $435.4 \pm 5.7\phantom{0}$ \\
    16 & 2 & 0.075 & $2077.0 \pm 32.9$ & $766.0 \pm 18.0$ \\
    16 & 4 & 0.075 & $1520.4 \pm 23.4$ & $538.5 \pm 12.5$ \\
    16 & 8 & 0.075 & $725.4 \pm 12.0$ & $321.0 \pm 16.3$ \\ \hline
  \end{tabular}
  }
  \caption{The $n$-step regret of $\cascadeucb$ and $\cascadeklucb$ in $n = 10^5$ steps.
    The list $\rnd{A}_t$ is ordered from the largest UCB to the smallest.
    All results are averaged over $20$ runs.}
  \label{tab:regret bounds}
\end{table}
\begin{table}[t]
  \centering
  {\small
  \begin{tabular}{rrr|rr} \hline
    $L$ & $K$ & $\Delta$ & $\cascadeucb$ & $\cascadeklucb$ \\ \hline
    16 & 2 & 0.15 & $1160.2 \pm 11.7$ & $333.3 \pm 6.1\phantom{0}$ \\
    16 & 4 & 0.15 & $660.0 \pm 8.3\phantom{0}$ & $209.4 \pm 4.4\phantom{0}$ \\
    16 & 8 & 0.15 & $181.4 \pm 3.9\phantom{0}$ & $60.4 \pm 2.0\phantom{0}$ \\
    32 & 2 & 0.15 & $2471.6 \pm 14.1$ & $716.0 \pm 7.5\phantom{0}$ \\
    32 & 4 & 0.15 & $1615.3 \pm 14.5$ & $482.3 \pm 6.7\phantom{0}$ \\
    32 & 8 & 0.15 & $595.0 \pm 7.8\phantom{0}$ & $201.9 \pm 5.8\phantom{0}$ \\
    16 & 2 & 0.075 & $1989.8 \pm 31.4$ & $785.8 \pm 12.2$ \\
    16 & 4 & 0.075 & $1239.5 \pm 16.2$ & $484.2 \pm 12.5$ \\
    16 & 8 & 0.075 & $336.4 \pm 10.3$ & $139.7 \pm 6.6\phantom{0}$ \\ \hline
  \end{tabular}
  }
  \caption{The $n$-step regret of $\cascadeucb$ and $\cascadeklucb$ in $n = 10^5$ steps.
    The list $\rnd{A}_t$ is ordered from the smallest UCB to the largest.
    All results are averaged over $20$ runs.}
  \label{tab:worst-first}
\end{table}
"""

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


@pytest.mark.parametrize("name", TABLE_NAMES)
def test_typed_tables_match_the_paper(name):
    parsed = parse_tex_table(PAPER_TABLES_TEX, table_meta(name)["label"])
    typed = paper_table(name)
    assert len(parsed) == 9 and len(typed) == 18
    flat = [(r["L"], r["K"], r["delta"], pol, *r[pol]) for r in parsed for pol in TABLE_POLICIES]
    assert flat == [(c.L, c.K, c.delta, c.policy, c.mean, c.se) for c in typed]


def test_typed_tables_spot_values():
    """A few cells read off the paper by eye, independent of the LaTeX parser."""
    t1 = {(c.L, c.K, c.delta, c.policy): (c.mean, c.se) for c in paper_table("table1")}
    t2 = {(c.L, c.K, c.delta, c.policy): (c.mean, c.se) for c in paper_table("table2")}
    assert t1[(16, 2, 0.15, "cascade-ucb1")] == (1290.1, 11.3)
    assert t1[(32, 8, 0.15, "cascade-klucb")] == (435.4, 5.7)
    assert t1[(16, 8, 0.075, "cascade-klucb")] == (321.0, 16.3)
    assert t2[(16, 8, 0.15, "cascade-klucb")] == (60.4, 2.0)
    assert t2[(32, 2, 0.15, "cascade-ucb1")] == (2471.6, 14.1)
    assert t2[(16, 4, 0.075, "cascade-klucb")] == (484.2, 12.5)
    # Section 5.2: worst-first lowers the regret in every cell but (16, 2, 0.075) KL-UCB
    higher = [k for k in t1 if t2[k][0] >= t1[k][0]]
    assert higher == [(16, 2, 0.075, "cascade-klucb")]


def test_meta_matches_the_paper():
    for name, label, order in (
        ("table1", "tab:regret bounds", "best-first"),
        ("table2", "tab:worst-first", "worst-first"),
    ):
        meta = table_meta(name)
        assert meta["label"] == label and meta["order"] == order
        assert meta["horizon"] == 100_000 and meta["runs"] == 20 and meta["p"] == 0.2
        assert "n = 10^5" in meta["caption"]
    assert "$n = 10^5$" in PAPER_TABLES_TEX
    assert "averaged over $20$ runs" in PAPER_TABLES_TEX
    assert figure1_meta()["ranked_over_cascade"] == 3.0
    assert "about three times" in figure1_meta()["ranked_over_cascade_quote"]
    assert "ICML 2015" in citation()


def test_unknown_table_rejected():
    with pytest.raises(ValueError, match="allowed: table1, table2"):
        paper_table("table3")
