"""What a settled ``--until decided`` run still trains (advisor.pipeline._rounds), on planned grids."""

from __future__ import annotations

from types import SimpleNamespace

from advisor.grid import evidence_rounds, plan_grid, profiles
from advisor.pipeline._rounds import _still_to_train

FAMILIES = ["static", "distilled", "contextual"]


def _after_two_looks() -> tuple[SimpleNamespace, list]:
    grid = plan_grid(200, FAMILIES, profiles.get("quick"), sizes=[50, 100, 200], seeds=3)
    return SimpleNamespace(grid=grid), evidence_rounds(grid.cells)[2:]  # seeds 0 and 1 at 200 trained


def test_a_settled_use_contextual_trains_the_baselines_curves_and_the_other_cheaper_familys_seeds() -> None:
    """The "label more data" rule reads the better of static and distilled: distilled's last seed at the
    largest size is trained (as the full grid would), its smaller sizes are not, contextual's none."""
    plan, rounds = _after_two_looks()
    rest, line = _still_to_train("use contextual", rounds, plan)
    keys = [c.key for r in rest for c in r]
    assert sorted(keys) == sorted([("static", 200, 2), ("distilled", 200, 2)] + [
        ("static", z, s) for z in (50, 100) for s in range(3)
    ])  # fmt: skip
    assert keys[:2] == [("static", 200, 2), ("distilled", 200, 2)]  # evidence first
    assert line == (
        "settled; training static at every size for the 'label more data' option, and distilled at 200 "
        "items to pick the best cheaper family"
    )


def test_a_settled_claim_that_a_cheaper_family_is_enough_trains_nothing_more() -> None:
    plan, rounds = _after_two_looks()
    for claim in ("static is enough", "distilled is enough"):
        rest, _ = _still_to_train(claim, rounds, plan)
        assert rest == []
