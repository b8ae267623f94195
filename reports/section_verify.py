"""Report section "Verification": every claim of the paper that ``cascading verify`` checks,
with its method, domain, number of instances, smallest slack and the slack's unit, verdict,
and a line for each claim that fails. Exported as ``tables/verify.csv``.

A claim's slack is ``rhs - lhs`` of its inequality in whatever scale its check reports it:
most are relative (a fraction of the right side, so comparable across claims), some are in
the claim's own quantity (a probability, steps, regret), an identity's is 0.
:data:`SLACK_UNITS` names the scale of each claim, as its check in ``verify`` computes it
(the check's notes say the same in words); the registry's bound claims (``bound.<name>``)
are named by the kind of bound (:func:`slack_unit`).
"""

from __future__ import annotations

from cascading_bandits.reports import tables as T
from cascading_bandits.reports.section_base import Context, Section, verdict_sentence

__all__ = ["SLACK_UNITS", "slack_unit", "VERIFICATION"]

_REL = "relative: (rhs − lhs) / rhs"
_MC = "relative: (bound − 99.9% upper limit of R(n)) / bound"
_LOWER = "relative: 1 − lower / upper constant"
_PROFILE = "relative: mean(rhs − lhs) / mean(rhs) over runs"
_IDENTITY = "0: an identity"

#: claim id -> the scale its slack is reported in (the checks of verify/claims_*.py)
SLACK_UNITS = {
    "lemma1": _IDENTITY,
    "lemma1.induction": _IDENTITY,
    "theorem1.permutation": "absolute: min over k of the index and weight gaps",
    "theorem1.upper": "relative: (rhs − lhs) / S",
    "theorem1.lower": "relative: (rhs − lhs) / S",
    "appendix.hoeffding": "relative: 1 − P t³ / 2",
    "appendix.series": "absolute: π²/6 − partial sum of 1/t²",
    "appendix.peeling_lp": "scaled: Δ_K (2/Δ_K − LP optimum)",
    "lemma2.rewrite": _IDENTITY,
    "lemma2.monotone": "0: derivative of kl at x = 0",
    "lemma2.chord": "absolute: kl(p, p+x) − chord, 0 at x = Δ",
    "lemma2.integral": "absolute: integral − sum, in 1/kl",
    "lemma2": _REL,
    "lemma2.k2": "scaled: (rhs − lhs) kl(p, p₂) / Δ₂",
    "ucb1_peeling": "scaled: Δ_K (rhs − lhs)",
    "theorem2": "relative: (bound − pre-peeling sum) / bound",
    "theorem3": "relative: 1 − Lemma 2 sum / log n coefficient",
    "theorem3.loglog": "absolute: 7 log log n − F(n), in steps",
    "theorem4": _LOWER,
    "discussion.exp_bound": "absolute: (1 − 1/K)^(K−1) − 1/e",
    "discussion.kl_quadratic": "scaled: (rhs − lhs) / p",
    "discussion.eq8_chain": "relative: each step, 1 − lhs / rhs",
    "discussion.klucb_below_ucb1": "relative: 1 − KL-UCB / UCB1 coefficient",
    "lower.example": "absolute: steps from E* to the interval's ends",
    "theorem2.mc": _MC,
    "theorem3.mc": _MC,
    "later.corollary2": "absolute: 2/θ − peeling sum, in 1/Δ",
    "later.corollary3": "relative: 1 − lhs / rhs",
    "later.graves_lai": "absolute: dual slack, regret per step",
    "later.graves_lai.theorem4": "relative: Graves-Lai / Theorem 4 − 1",
    "later.orders": "0: sympy residuals",
    "later.corollary2.mc": _MC,
    "later.corollary3.mc": _MC,
    "sharp.nested_lp": "relative: 1e-7 − solver's relative gap",
    "sharp.a_part": "absolute probability; B_A relative",
    "sharp.pathwise": "absolute: per step, in regret",
    "sharp.layer_cake": "relative: (layer form − sum) / sum",
    "sharp.truncation": "relative: (bound − rest) / bound",
    "sharp.reference": "relative: (fast − reference) / reference",
    "sharp.exact_small": "absolute: bound − R(n), in regret",
}
for _c in (
    "theorem1_upper", "theorem1_lower", "theorem1_exact", "observation_identity", "tau_ucb1",
    "counting", "bad_ucb1", "bad_klucb", "mbar_klucb", "binomial_split", "binomial_a",
    "binomial_b",
):  # fmt: skip
    SLACK_UNITS[f"profile.{_c}"] = _PROFILE


def slack_unit(claim_id: str) -> str:
    """The scale of a claim's slack: :data:`SLACK_UNITS`, a registered bound's claim
    (``bound.<name>``) by its kind, else ``"see the claim's notes"``."""
    if claim_id in SLACK_UNITS:
        return SLACK_UNITS[claim_id]
    if claim_id.startswith("bound."):
        from cascading_bandits.bounds.registry import get_bound

        try:
            kind = get_bound(claim_id.removeprefix("bound.")).kind
        except ValueError:  # a bound unregistered since verify ran
            return "see the claim's notes"
        return _LOWER if kind == "lower" else _MC
    return "see the claim's notes"


def _verify_table(ctx: Context) -> T.Table | None:
    v = ctx.verify
    if not v.get("available"):
        return None
    return T.Table(
        "verify",
        "Every claim of the paper checked by cascading verify: method, domain, number of "
        "instances, smallest slack rhs − lhs and the scale it is in (relative to the right "
        "side, scaled, or absolute in the claim's own quantity), and verdict.",
        ("claim", "paper", "method", "domain", "instances", "min slack", "slack unit")
        + ("verdict",),
        tuple(
            (
                f"`{d.get('claim_id')}`",
                str(d.get("reference", "")),
                str(d.get("method", "")),
                str(d.get("domain", "")),
                str(d.get("instances", "")),
                T.Num(d.get("min_slack"), 4, sig=True) if d.get("min_slack") is not None else "-",
                slack_unit(str(d.get("claim_id"))),
                str(d.get("status")),
            )
            for d in v["verdicts"]
        ),
        "lllllrll",
    )


def _verify_md(ctx: Context) -> str:
    v = ctx.verify
    head = "## Verification (`cascading verify`)\n\n"
    if not v.get("available"):
        return head + (
            "*`verify` is not available in this checkout, so no claim was checked here.* "
            f"({v.get('reason', '')})\n"
        )
    t = ctx.table("verify", _verify_table)
    md = head + verdict_sentence(v) + "\n\n" + t.markdown() + "\n"
    failed = [d for d in v["verdicts"] if d.get("status") == "fails"]
    for d in failed:
        md += f"\n**`{d['claim_id']}` fails**: {d.get('notes') or d.get('statement', '')}\n"
    return md


VERIFICATION = Section("verification", _verify_md, (("verify", _verify_table),), reads_verify=True)
