"""The report's Method section describes what this run did, not an ideal."""

from __future__ import annotations

import json

import numpy as np

from advisor.verdict import ItemScores, Thresholds, analysis_from_item_scores, recommend
from advisor.verdict._method import method_notes


def test_method_notes_follow_the_run(make_case) -> None:
    rng = np.random.default_rng(0)
    keys = [(e, s, d) for e in ("static", "contextual") for s in (50, 100) for d in range(3)]
    correct = (rng.random((len(keys), 80)) < 0.7).astype(np.int32)
    counts = np.stack([correct, np.ones_like(correct)], axis=2)
    analysis = analysis_from_item_scores(ItemScores("accuracy", keys, counts))
    notes = method_notes(analysis, recommend(analysis, Thresholds(n_boot=300)))
    assert (
        notes[0].startswith("Uncertainty: one hierarchical bootstrap (300 replicates)")
        and "80 test items" in notes[0]
    )
    assert any(n.startswith("Gain model: cross-fitted on the test split") for n in notes)
    older = make_case("use contextual", noise=0.001)  # no per-item scores: seeds only, and it says so
    assert "intervals are over seeds only" in method_notes(older, recommend(older))[0]


def test_method_notes_state_the_downstream_model_and_its_precision(make_case) -> None:
    from dataclasses import replace

    case = make_case("use contextual", noise=0.001)
    config = {
        "hidden": 64,
        "batch_size": 64,
        "lr": 0.005,
        "dropout": 0.3,
        "max_steps": 4000,
        "min_steps": 600,
        "patience": 5,
    }
    before_precision = config  # a run logged before --precision existed
    for logged, said in [
        ({**config, "precision": "bfloat16"}, "computed in bfloat16 (activations rounded"),
        (before_precision, "computed in float32."),
    ]:
        analysis = replace(case, params={**case.params, "train_config": json.dumps(logged)})
        training = [
            n for n in method_notes(analysis, recommend(analysis)) if n.startswith("Downstream model")
        ]
        assert len(training) == 1 and said in training[0] and "at most 4000 steps" in training[0]
        assert "after at least 600 steps" in training[0] and "5 evaluations" in training[0]
        assert "stopped once dev had not improved" in training[0]  # no anneals logged: the older rule
    annealed = replace(case, params={**case.params, "train_config": json.dumps({**config, "anneals": 2})})
    training = next(n for n in method_notes(annealed, recommend(annealed)) if n.startswith("Downstream"))
    assert "learning rate halved each time dev had not improved for 5 evaluations" in training
    assert "(at most 2 times), and training stopped at the next such plateau" in training
    assert not any(n.startswith("Downstream model") for n in method_notes(case, recommend(case)))


def _downstream_note(case, params: dict) -> str:
    """The Method section's downstream-model sentence for ``case`` run with ``params``."""
    from dataclasses import replace

    notes = method_notes(replace(case, params=params), recommend(case))
    return next(n for n in notes if n.startswith("Downstream model"))


def test_method_notes_state_how_the_learning_rate_was_chosen(make_case) -> None:
    case = make_case("use contextual", noise=0.001)
    config = {
        "hidden": 64,
        "batch_size": 64,
        "dropout": 0.3,
        "max_steps": 4000,
        "min_steps": 600,
        "patience": 5,
    }
    tuned = {**config, "lr": None, "lr_grid": [0.001, 0.003, 0.01], "lr_seeds": 2}
    params = {**case.params, "train_config": json.dumps(tuned)}
    params["learning_rates"] = json.dumps({"static": 0.01, "contextual": 0.003})
    training = _downstream_note(case, params)
    assert "chosen per embedding on dev from {0.001, 0.003, 0.01}" in training
    assert "2 seeds; the largest rate whose lower bound (mean dev score less its own standard" in training
    assert "chosen: static 0.01, contextual 0.003" in training
    older = {**tuned, "lr_choice": "largest within 1 SE of the best mean dev"}
    params["train_config"] = json.dumps(older)
    training = _downstream_note(case, params)
    assert "2 seeds; the largest rate within one standard error of the best mean dev score" in training
    fixed = {**case.params, "train_config": json.dumps({**config, "lr": 0.005})}
    training = _downstream_note(case, fixed)
    assert "learning rate 0.005 for every embedding" in training


def test_method_notes_state_the_width_chosen_with_the_rate(make_case) -> None:
    """A profile with several projection widths: the width is named as chosen on dev, per family."""
    case = make_case("use contextual", noise=0.001)
    config = {"hidden": 64, "batch_size": 64, "dropout": 0.3, "projection": None, "lr": None}
    config |= {"lr_grid": [0.001, 0.01], "lr_seeds": 2, "projection_grid": [64, 256]}
    config["lr_choice"] = (
        "narrowest width, then largest rate, among those within 1 median SE of the best bound's"
    )
    params = {**case.params, "train_config": json.dumps(config)}
    params["learning_rates"] = json.dumps({"static": 0.01, "contextual": 0.001})
    params["projections"] = json.dumps({"static": 256, "contextual": 64})
    training = _downstream_note(case, params)
    assert "a learnt linear projection of the vectors (its width chosen on dev, below), then a " in training
    assert "learning rate and projection width chosen per embedding on dev from {0.001, 0.01} x " in training
    assert "projection widths {64, 256} (models per setting at the grid's middle size, 2 seeds; " in training
    assert "the narrowest width, and at it the largest rate" in training
    assert "chosen: static 0.01 at 256 dims, contextual 0.001 at 64 dims" in training


def test_method_states_the_cost_rule_with_the_inputs_judged_under(make_case) -> None:
    case = make_case("use contextual", noise=0.001)
    (plain,) = [n for n in method_notes(case, recommend(case)) if n.startswith("Cost against accuracy")]
    assert "no price given: without one it stays in machine-hours" in plain and "(here none)" in plain
    t = Thresholds(
        price_per_hour=2.0, value_per_point=5.0, latency_budget_ms=10.0, latency_batch=64, n_boot=200
    )
    (given,) = [n for n in method_notes(case, recommend(case, t)) if n.startswith("Cost against accuracy")]
    assert (
        "$2 per machine-hour" in given and "here $5), contextual is worth it only if the lower end" in given
    )
    assert "(here 10 ms/item at batch 64) is never the recommendation" in given


def test_method_states_the_stopping_rule_only_when_the_run_used_it(make_case) -> None:
    from dataclasses import replace

    case = make_case("use contextual", noise=0.001)
    rec = recommend(case)
    assert not any(n.startswith("Stopping (--until decided)") for n in method_notes(case, rec))
    decided = replace(case, params={**case.params, "until": "decided", "seeds": 3})
    stated = [n for n in method_notes(decided, rec) if n.startswith("Stopping (--until decided)")]
    assert len(stated) == 1 and "at most 3 looks" in stated[0]


def test_method_names_the_pair_model_around_the_shared_encoder(make_case) -> None:
    from dataclasses import replace

    case = make_case("use contextual", noise=0.001)
    config = {"hidden": 64, "batch_size": 64, "lr": 0.005, "dropout": 0.3, "classifier": "bilstm"}
    params = {**case.params, "train_config": json.dumps(config)}
    pair = replace(case, task="pair", params=params)
    training = next(n for n in method_notes(pair, recommend(pair)) if n.startswith("Downstream model"))
    assert "one BILSTM encoder (hidden 64) shared by both texts of a pair" in training
    assert "[u; v; |u − v|; u ⊙ v]" in training
    single = next(
        n
        for n in method_notes(replace(case, task="classify", params=params), recommend(case))
        if n.startswith("Downstream")
    )
    assert "a BILSTM classifier (hidden 64)" in single and "pair" not in single
    assert "projection" not in single  # a store that did not log the width says nothing of it


def test_method_names_the_projection_width_every_family_passes(make_case) -> None:
    from dataclasses import replace

    case = make_case("use contextual", noise=0.001)
    config = {"hidden": 64, "batch_size": 64, "lr": 0.005, "dropout": 0.3, "projection": 256}
    params = {**case.params, "train_config": json.dumps(config)}
    training = next(
        n for n in method_notes(replace(case, params=params), recommend(case)) if n.startswith("Downstream")
    )
    assert (
        "on frozen features: a learnt linear projection of the vectors to 256 dimensions, then a " in training
    )
