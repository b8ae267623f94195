"""docs/design.md and simulate's package docstring describe what the code declares: every
click model, the state-based selection's threshold, the seed rule and the store's format."""

from pathlib import Path

import cascading_bandits.simulate as simulate
from cascading_bandits.simulate.models import MODEL_NAMES
from cascading_bandits.simulate.policies import policy_names
from cascading_bandits.simulate.policies._index_states import STATES_MIN
from cascading_bandits.simulate.store import FORMAT
from cascading_bandits.simulate.sweep import CELL_TAG, cell_content

DESIGN = (Path(__file__).resolve().parents[2] / "docs" / "design.md").read_text()


def test_every_click_model_is_named():
    for name in MODEL_NAMES:
        assert f"`{name}`" in DESIGN, name
        assert f"``{name}``" in simulate.__doc__, name


def test_state_selection_threshold_and_its_policies():
    assert f"`STATES_MIN` = {STATES_MIN} items" in DESIGN
    assert f"from {STATES_MIN} items on" in simulate.__doc__
    for label in ("CascadeUCB1", "CascadeUCB-V", "TS-Cascade"):
        assert label in DESIGN and label in simulate.__doc__
    assert {"cascade-ucb1", "cascade-ucbv", "cascade-egreedy", "ts-cascade"} <= set(policy_names())


def test_seed_rule_and_store_format():
    """The documented fields of the cell's seed are those cell_content hashes, and the
    documented format is the store's."""
    import json

    from cascading_bandits.simulate.experiments import b_lb_cell

    fields = set(json.loads(cell_content(b_lb_cell("x", 4, 2, 0.2, 0.1, "oracle", model="pbm"))))
    assert fields == {"model", "weights", "K", "policy", "order", "nu", "gamma", "kappa"}
    for text in (DESIGN, simulate.__doc__):
        assert "cell_content" in text and "CELL_TAG" in text
        assert f"format {FORMAT}" in text.replace("\n", " ").replace("  ", " ")
        assert "not by its name" in text.replace("\n  ", " ").replace("\n", " ")
    assert "root.spawn_key + (CELL_TAG, w0" in DESIGN.replace("\n  ", " ")
    assert CELL_TAG == int.from_bytes(b"CELL", "big")
    assert "older" in DESIGN and "refused" in DESIGN
