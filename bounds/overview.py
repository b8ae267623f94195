"""Every registered bound on one instance at one horizon, as data: what ``cascading bounds``
and ``cascading ledger`` print.

:func:`list_bounds` is the registry (:mod:`bounds.registry`) as plain dicts, nothing
evaluated; :func:`registry_rows` evaluates each registered bound with a constant at
``(instance, n)`` or says which premise fails; :func:`overview` adds the paper's Theorems
2-4 in detail (Theorem 2's coefficient of ``log n``, Theorem 3's eps, C, C2 and beta,
Theorem 4's general and sharp (Graves-Lai) constants); :func:`not_applicable` names the
registered bounds without a row in :func:`bounds.later.ledger`.
"""

from __future__ import annotations

import math

__all__ = ["list_bounds", "registry_rows", "overview", "not_applicable", "estimate"]

#: peak bytes and seconds per item of :func:`overview` on B_LB(L, K, 0.2, 0.15): measured with
#: tracemalloc and a wall clock at L = 128..1024, K = 2 and 8 on a loaded 2-core machine
#: (about 600 B and 0.14 s per item, nearly independent of K), doubled for safety
BYTES_PER_ITEM, SECONDS_PER_ITEM = 1200, 0.3


def estimate(L, instances=1) -> dict:
    """Memory (bytes, peak) and time (seconds) of :func:`overview` or :func:`bounds.later.ledger`
    on ``instances`` instances of ``L`` items each, before any work.

    Parameters
    ----------
    L : int or float
        Items per instance (a float is accepted so that an absurd size is estimated, not built).
    instances : int
        Instances evaluated one after the other (peak memory is one instance's).

    Returns
    -------
    dict with ``bytes`` and ``seconds`` (:data:`BYTES_PER_ITEM`, :data:`SECONDS_PER_ITEM`).
    """
    L, instances = float(L), float(instances)
    if not (L >= 0 and instances >= 0):
        raise ValueError(f"L and instances must be >= 0, got {L!r}, {instances!r}")
    return {"bytes": BYTES_PER_ITEM * L, "seconds": SECONDS_PER_ITEM * L * instances}


def _policies(b) -> list:
    from cascading_bandits.bounds.registry import ANY_POLICY

    return [ANY_POLICY] if b.covers == ANY_POLICY else [c.text for c in b.covers]


def list_bounds() -> list[dict]:
    """The registry as data, nothing evaluated: one dict per registered bound, in
    registration order, with ``name``, ``title``, ``kind``, ``form``, ``gap``, ``asymptotic``,
    ``policies`` (the covered policies' texts, or ``["any"]``), ``premises`` (texts),
    ``models`` (click models), ``source``, ``rate`` and ``derivation`` (None if cited)."""
    from cascading_bandits.bounds.registry import all_bounds

    return [
        {
            "name": b.name,
            "title": b.title,
            "kind": b.kind,
            "form": b.form,
            "gap": b.gap,
            "asymptotic": b.asymptotic,
            "policies": _policies(b),
            "premises": b.premise_texts(),
            "models": list(b.models),
            "source": b.source,
            "rate": b.rate,
            "derivation": b.derivation or None,
        }
        for b in all_bounds()
    ]


def registry_rows(inst, n, theorem4, model="cascade") -> list[dict]:
    """Every registered bound at ``(inst, n)``, one dict each, in registration order.

    Parameters
    ----------
    inst : CascadeInstance
    n : int >= 2
    theorem4 : float
        Theorem 4 at n (``theorem4_coefficient * log n``), the denominator of the ratio.
    model : str or bounds.registry.ModelView
        The click model the bounds are read under (:func:`bounds.registry.model_name`, or
        :func:`bounds.registry.model_view` with the parameters premises may read, such as a
        PBM's ``kappa``): a bound proved for other models is reported with that premise
        failing.

    Returns
    -------
    list of dict with keys ``name`` (registry name), ``title``, ``kind``, ``form``, ``gap``,
    ``asymptotic``, ``policies``, ``source``, ``rate``, ``applies`` (every premise holds at
    n), ``failed_premise`` (the first that fails, or None), ``value`` (the bound at n; None
    when it does not apply, is known only as an order, or overflows a double: ``note`` says
    which), ``value_over_log_n`` (gap-dependent bounds only, else None),
    ``ratio_to_theorem4`` (None when Theorem 4 is 0 or there is no value) and ``note``.
    """
    from cascading_bandits.bounds.registry import all_bounds

    logn = math.log(n)
    out = []
    for b in all_bounds():
        failed = b.failed_premise(inst, n, model)
        value = note = None
        if failed is not None:
            note = f"needs {failed}"
        elif b.form != "constant":
            note = "known only as an order: no constant, no value to compare"
        else:
            try:
                value = float(b(inst, n, model=model))
            except ValueError as e:  # beyond the float64 range at this n
                note = str(e)
        out.append(
            {
                "name": b.name,
                "title": b.title,
                "kind": b.kind,
                "form": b.form,
                "gap": b.gap,
                "asymptotic": b.asymptotic,
                "policies": _policies(b),
                "source": b.source,
                "rate": b.rate,
                "applies": failed is None,
                "failed_premise": failed,
                "value": value,
                "value_over_log_n": (
                    value / logn if value is not None and b.gap == "dependent" else None
                ),
                "ratio_to_theorem4": (
                    value / theorem4 if value is not None and theorem4 > 0 else None
                ),
                "note": note,
            }
        )
    return out


def overview(inst, n, eps=None, form="paper", blb=None, model="cascade") -> dict:
    """All the numbers ``cascading bounds`` prints, as a dict of floats (JSON-ready).

    The paper's theorems in detail (Theorem 3 at ``eps`` and ``form``; the cascade model's),
    and under ``bounds`` every registered bound (:func:`registry_rows`) under ``model`` (a
    name or a :class:`bounds.registry.ModelView`; the JSON's ``model`` is its name).
    """
    from cascading_bandits.bounds import lower, upper
    from cascading_bandits.bounds.registry import model_view

    inst.require_unique_optimum()
    logn = math.log(n)
    t4 = lower.theorem4_coefficient(inst)
    t3 = upper.theorem3_details(inst, n, eps=eps, form=form)
    out = {
        "instance": {"weights": list(inst.weights), "K": inst.K, "L": inst.L},
        "n": n,
        "log_n": logn,
        "theorem2": upper.theorem2_bound(inst, n),
        "theorem2_coefficient": upper.theorem2_leading_coefficient(inst),
        "theorem2_prepeeling": upper.theorem2_prepeeling(inst, n),
        "theorem2_prepeeling_coefficient": 6 * upper.theorem2_prepeeling_coefficient(inst),
        "theorem3": t3["bound"],
        "theorem3_form": form,
        "theorem3_constant": t3["constant"],
        "theorem3_coefficient": t3["log_n_coefficient"],
        "theorem3_prepeeling": t3["prepeeling"],
        "theorem3_prepeeling_coefficient": (1 + t3["eps"])
        * upper.theorem3_prepeeling_coefficient(inst),
        "theorem3_leading": t3["leading_coefficient"] * logn,
        "theorem3_leading_coefficient": t3["leading_coefficient"],
        "theorem4_coefficient": t4,
        "theorem4": t4 * logn,
        "theorem4_general_coefficient": lower.theorem4_general_coefficient(inst),
        "theorem4_sharp_coefficient": lower.theorem4_sharp_coefficient(inst),
        "eps": t3["eps"],
        "eps_optimised": t3["eps_optimised"],
        "C2": t3["C2"],
        "beta": t3["beta"],
        "model": model_view(model).name,
        "bounds": registry_rows(inst, n, t4 * logn, model),
    }
    if blb is not None:
        out["instance"].update({"p": float(blb["p"]), "delta": float(blb["delta"])})
    return out


def not_applicable(inst, n: int, rows, model="cascade") -> list[dict]:
    """The registered bounds without a row in ``rows`` (:func:`bounds.later.ledger` of
    ``inst`` at ``n`` under ``model``, a name or a :class:`bounds.registry.ModelView`), each
    with why.

    Returns
    -------
    list of dict, in registration order, with keys ``bound`` (the registry name), ``name``
    (its title), ``kind``, ``gap``, ``form``, ``failed_premise`` (the text of the first
    premise that fails, :meth:`bounds.registry.Bound.failed_premise`; None when every premise
    holds) and ``why`` (one line: the premise it needs, or that its value at n overflows a
    double).
    """
    from cascading_bandits.bounds.registry import all_bounds

    have = {r.get("bound") for r in rows}
    out = []
    for b in all_bounds():
        if b.name in have:
            continue
        failed = b.failed_premise(inst, n, model)
        why = (
            f"needs {failed}"
            if failed is not None
            else "its value at n is beyond the float64 range (no row)"
        )
        out.append(
            {
                "bound": b.name,
                "name": b.title,
                "kind": b.kind,
                "gap": b.gap,
                "form": b.form,
                "failed_premise": failed,
                "why": why,
            }
        )
    return out
