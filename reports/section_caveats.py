"""Report section "Caveats": where the paper is wrong as printed or needs a condition.

One entry per caveat of ``verify.caveats()``: a one-line headline (:data:`CAVEAT_HEADLINES`,
written per caveat id and kind), the pinned test that keeps its evidence honest, the claims
it concerns, its evidence as a table, and the paper's statement with the full finding folded
below. The lead of the report (:mod:`reports.section_glance`) lists the errata by the same
headlines.
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.section_base import Context, Section, md_inline

__all__ = ["CAVEAT_HEADLINES", "CAVEAT_KINDS", "caveat_headline", "evidence_table", "CAVEATS"]


#: one line per caveat of ``verify.caveats()`` for the report's lead, by caveat id, with the
#: kind it was written for; a caveat whose kind differs (its evidence changed) or that is
#: not listed falls back to the first sentence of its ``truth``
CAVEAT_HEADLINES = {
    "peeling-lp-constraints": (
        "erratum",
        "the peeling LP in the proofs of Theorems 2 and 3 is not solved by the printed m* "
        "under the printed constraints (its optimum can exceed 2/Δ_K); the nested constraints "
        "the proof implies repair it, and the theorems stand.",
    ),
    "hoeffding-index-shift": (
        "erratum",
        "the (π²/3) L bound on the bad events is derived for the radius c_{t,s}, not the "
        "algorithm's c_{t−1,s}; redone, the per-item constant exceeds π²/3, and Theorem 2's "
        "constant survives only through a sharper count.",
    ),
    "lemma2-integral-range": (
        "erratum",
        "the proof of Lemma 2 integrates 1/kl(p, p + x) up to x = 1, where p + x > 1 is not a "
        "probability; integrating up to Δ_1 ≤ 1 − p repairs it (Lemma 2 stands).",
    ),
    "theorem3-small-n": (
        "unstated-condition",
        "Theorem 3's bound can be negative for n < 3 (log log n < 0); it needs n ≥ 3 or "
        "log log n replaced by max(log log n, 0).",
    ),
    "klucb-regime": (
        "imprecise",
        "with the theorems' constants the KL-UCB bound is below the UCB1 bound for all Δ above "
        "about e^−6K, a far wider range than the discussion's Δ = Ω(e^−K).",
    ),
    "example-l-2k": (
        "imprecise",
        "in the lower-bound example the optimal list is found at expected step L/(2K) + 1/2 "
        "(when K divides L), not L/(2K): right as an order of magnitude.",
    ),
    "lemma1-independence": (
        "premise-needed",
        "Lemma 1 needs independent weights: with two items sharing one coin it fails.",
    ),
    "lemma1-premise": (
        "premise-unneeded",
        "Lemma 1 holds without its premise 'a_i = b_j only if i = j', but its proof's "
        "term-by-term factorisation needs it.",
    ),
    "lemma2-order": (
        "premise-unneeded",
        "Lemma 2 does not need p_1 ≥ … ≥ p_K, only p_k > p.",
    ),
    "ucb1-peeling-order": (
        "premise-unneeded",
        "the peeling inequality holds for unsorted gaps; the ordering is needed only for m* "
        "to solve the peeling LP.",
    ),
    "initialization-regret": (
        "unstated-condition",
        "R(n) leaves out the O(L) initialisation steps; counting them adds O(L) to every "
        "bound and leaves the log n terms unchanged.",
    ),
    "theorem1-list-premise": (
        "premise-unneeded",
        "Theorem 1's regret bounds hold for every K-permutation; only the UCB inequality of "
        "its proof needs a top-K list.",
    ),
    "theorem1-alpha": (
        "imprecise",
        "the best constant in Theorem 1's lower bound is ∏_{j<K} (1 − w(j)), which can be many "
        "times (1 − w(1))^(K−1); the two are equal on B_LB, so Theorem 4 stands.",
    ),
    "gc-loglog-small-n": (
        "unstated-condition",
        "Theorem 3's bad-event term 7 K log log n (from Garivier and Cappé) holds only from "
        "n = 48 on.",
    ),
    "theorem4-large-p": (
        "imprecise",
        "Theorem 4 matches Theorem 3 up to log(1/Δ) only for p = O(1/K); the gap grows "
        "exponentially in pK.",
    ),
}

#: caveat kind -> how the report names it
CAVEAT_KINDS = {
    "erratum": ("erratum", "errata"),
    "unstated-condition": ("unstated condition", "unstated conditions"),
    "premise-needed": ("premise needed", "premises needed"),
    "premise-unneeded": ("premise not needed", "premises not needed"),
    "imprecise": ("imprecise statement", "imprecise statements"),
}


def caveat_headline(c: dict) -> str:
    """One line for a caveat (dict of ``verify.Caveat``): its entry in
    :data:`CAVEAT_HEADLINES` if the kind matches, else the first sentence of its ``truth``."""
    kind, text = CAVEAT_HEADLINES.get(c.get("id"), (None, None))
    if text is not None and kind == c.get("kind"):
        return text
    truth = str(c.get("truth") or c.get("paper_says") or "")
    cut = truth.find(". ")
    return truth if cut < 0 else truth[: cut + 1]


def _evidence_value(x) -> str:
    if isinstance(x, bool) or x is None:
        return str(x)
    if isinstance(x, float):
        return T.fmt_sig(x, 6)
    if isinstance(x, (list, tuple)):
        return "(" + ", ".join(_evidence_value(v) for v in x) + ")"
    if isinstance(x, dict):
        return "; ".join(f"{k} = {_evidence_value(v)}" for k, v in x.items())
    return str(x)


def evidence_table(evidence: dict) -> str:
    """A caveat's evidence as a Markdown table, nothing cut.

    A dict of dicts that share their keys (one instance per entry) becomes one row per
    entry and one column per key; any other dict one row per key.
    """
    if not isinstance(evidence, dict) or not evidence:
        return f"`{_evidence_value(evidence)}`"
    vals = list(evidence.values())
    if all(isinstance(v, dict) for v in vals) and len({tuple(v) for v in vals}) == 1:
        cols = list(vals[0])
        rows = [[str(k)] + [_evidence_value(v[c]) for c in cols] for k, v in evidence.items()]
        return T.markdown_table(["instance", *cols], rows, align="l" + "r" * len(cols))
    rows = [[str(k), _evidence_value(v)] for k, v in evidence.items()]
    return T.markdown_table(["evidence", "value"], rows, align="ll")


def _caveats_md(ctx: Context) -> str:
    v = ctx.verify
    if not v.get("available") or not v.get("caveats"):
        return ""
    md = (
        "## Caveats: where the paper is wrong as printed or needs a condition\n\n"
        "Each caveat in one line, the numbers that show it, and the test that fails if the "
        "evidence stops showing it.\n"
    )
    for c in v["caveats"]:
        kind = CAVEAT_KINDS.get(c.get("kind"), (c.get("kind"), ""))[0]
        md += (
            f"\n### `{c.get('id')}` ({kind})\n\n"
            f"{md_inline(caveat_headline(c))}\n\n"
            f"- pinned test: `{c.get('test')}`\n"
            f"- claims: {', '.join(f'`{x}`' for x in c.get('claims') or [])}\n\n"
            f"{evidence_table(c.get('evidence'))}\n\n"
            "<details><summary>The paper's statement and the full finding</summary>\n\n"
            f"- *the paper:* {md_inline(c.get('paper_says'))}\n"
            f"- *in full:* {md_inline(c.get('truth'))}\n\n"
            "</details>\n"
        )
    return md


CAVEATS = Section("caveats", _caveats_md, reads_verify=True)
