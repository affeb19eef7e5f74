"""Learning rates chosen on dev: the same grid for every family, stored, reused on resume, never on test."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from advisor.grid import Cell, GridPlan
from advisor.pipeline import LR_TAG, TUNING_TABLE, choose_learning_rates, known_rates, tuning_size
from advisor.runner import ProgressEvent, run_analysis
from advisor.settings import RunSettings
from advisor.tracking import child_runs, client_for, load_analysis, read_json_table
from tests.helpers import NewStore, tiny_run_settings, write_ner_splits

GRID = (1e-3, 3e-3, 1e-2)
TUNING_SEEDS = [0, 1]


ONE_WIDTH = (64,)


def _fake_train(dev: dict[tuple, float], test: float = 0.0):
    """An executor whose results have the given dev score per (family, lr[, seed[, width]]) and a fixed
    test score."""

    def train(cells: list[Cell]):
        for cell in cells:
            score = dev.get(
                (cell.embedding, cell.lr, cell.seed, cell.projection),
                dev.get((cell.embedding, cell.lr, cell.seed), dev.get((cell.embedding, cell.lr))),
            )
            result = SimpleNamespace(dev_score=score, score=test, steps=700, under_trained=False)
            yield cell, result, 0.1

    return train


def test_each_family_gets_the_rate_with_the_best_dev_score() -> None:
    grid = GridPlan(sizes=[10, 20, 40, 80], seeds=[0, 1], embeddings=["static", "contextual"], full_size=80)
    assert tuning_size(grid) == 20
    dev = {("static", 1e-3): 0.5, ("static", 3e-3): 0.6, ("static", 1e-2): 0.7}
    dev |= {("contextual", 1e-3): 0.8, ("contextual", 3e-3): 0.7, ("contextual", 1e-2): 0.6}
    chosen = choose_learning_rates(
        grid, ["static", "contextual"], GRID, TUNING_SEEDS, _fake_train(dev, test=0.99), widths=ONE_WIDTH
    )
    assert chosen.rates == {"static": 1e-2, "contextual": 1e-3}
    table = chosen.table
    assert len(table) == 12 and set(table["size"]) == {20} and set(table["seed"]) == set(TUNING_SEEDS)
    assert table.groupby("embedding")["lr"].apply(lambda rates: sorted(set(rates))).to_dict() == {
        e: list(GRID) for e in ("static", "contextual")
    }
    assert table["chosen"].sum() == 2 * len(TUNING_SEEDS)


def _chosen(dev: dict, seeds: list[int] = TUNING_SEEDS) -> dict[str, float]:
    grid = GridPlan(sizes=[10, 20], seeds=[0, 1], embeddings=["static"], full_size=20)
    return choose_learning_rates(grid, ["static"], GRID, seeds, _fake_train(dev), widths=ONE_WIDTH).rates


def test_one_lucky_seed_does_not_decide() -> None:
    dev = {("static", 1e-3, 0): 0.50, ("static", 1e-3, 1): 0.52}
    dev |= {("static", 3e-3, 0): 0.70, ("static", 3e-3, 1): 0.72}
    dev |= {("static", 1e-2, 0): 0.74, ("static", 1e-2, 1): 0.40}  # the best seed, a poor mean
    assert _chosen(dev) == {"static": 3e-3}


def test_rates_within_one_standard_error_go_to_the_largest() -> None:
    dev = {("static", 1e-3, 0): 0.60, ("static", 1e-3, 1): 0.62}  # bound 0.60: 4 standard errors below
    dev |= {("static", 3e-3, 0): 0.64, ("static", 3e-3, 1): 0.66}  # the best bound, 0.64
    dev |= {("static", 1e-2, 0): 0.635, ("static", 1e-2, 1): 0.655}  # bound 0.635: half an error below
    assert _chosen(dev) == {"static": 1e-2}
    dev[("static", 1e-2, 1)] = 0.60  # now its worse seed is 4 standard errors below the best bound
    assert _chosen(dev) == {"static": 3e-3}


def test_a_rate_with_a_collapsed_seed_loses_to_a_steady_one() -> None:
    """The CoNLL-size case: one seed learned, one collapsed; the mean alone (and a tie widened by
    that collapse) chose it. The rate's own spread now counts against it."""
    dev = {("random", 1e-3, 0): 0.140, ("random", 1e-3, 1): 0.150}
    dev |= {("random", 3e-3, 0): 0.150, ("random", 3e-3, 1): 0.160}
    dev |= {("random", 1e-2, 0): 0.257, ("random", 1e-2, 1): 0.069}  # the best mean, 0.163
    grid = GridPlan(sizes=[10, 20], seeds=[0, 1], embeddings=["random"], full_size=20)
    chosen = choose_learning_rates(
        grid, ["random"], GRID, TUNING_SEEDS, _fake_train(dev), widths=ONE_WIDTH
    ).rates
    assert chosen == {"random": 3e-3}


def test_with_one_tuning_seed_the_best_wins_and_an_exact_tie_goes_to_the_largest() -> None:
    assert _chosen({("static", 1e-3): 0.7, ("static", 3e-3): 0.69, ("static", 1e-2): 0.5}, [0]) == {
        "static": 1e-3
    }
    assert _chosen({("static", lr): 0.0 for lr in GRID}, [0]) == {"static": 1e-2}


def test_a_rate_that_ties_on_the_bound_but_not_on_the_mean_does_not_win_as_the_larger() -> None:
    """MRPC's contextual trials: 1e-2 sat at the majority label on both seeds; 1e-3 learned on one.
    Their bounds tie within one standard error, their means do not: the larger rate does not win."""
    dev = {("contextual", 1e-3, 0): 0.717, ("contextual", 1e-3, 1): 0.681}
    dev |= {("contextual", 3e-3, 0): 0.676, ("contextual", 3e-3, 1): 0.676}
    dev |= {("contextual", 1e-2, 0): 0.687, ("contextual", 1e-2, 1): 0.676}
    grid = GridPlan(sizes=[10, 20], seeds=[0, 1], embeddings=["contextual"], full_size=20)
    chosen = choose_learning_rates(
        grid, ["contextual"], GRID, TUNING_SEEDS, _fake_train(dev), widths=ONE_WIDTH
    ).rates
    assert chosen == {"contextual": 1e-3}


#: Static's measured dev scores at the tuning size (``experiments/bench_convergence.py --against
#: projection=256``, default profile, 3 rates x 2 widths x 2 seeds): (lr, width, seed) -> dev score.
TREC_STATIC = {
    (0.001, 64, 0): 0.7872, (0.001, 64, 1): 0.7688, (0.003, 64, 0): 0.8055, (0.003, 64, 1): 0.7651,
    (0.01, 64, 0): 0.7963, (0.01, 64, 1): 0.7706, (0.001, 256, 0): 0.7982, (0.001, 256, 1): 0.7706,
    (0.003, 256, 0): 0.8055, (0.003, 256, 1): 0.7945, (0.01, 256, 0): 0.7541, (0.01, 256, 1): 0.7541,
}  # fmt: skip
WNUT_STATIC = {
    (0.001, 64, 0): 0.3516, (0.001, 64, 1): 0.3665, (0.003, 64, 0): 0.3903, (0.003, 64, 1): 0.3745,
    (0.01, 64, 0): 0.3881, (0.01, 64, 1): 0.3632, (0.001, 256, 0): 0.374, (0.001, 256, 1): 0.3405,
    (0.003, 256, 0): 0.3683, (0.003, 256, 1): 0.3615, (0.01, 256, 0): 0.3791, (0.01, 256, 1): 0.3539,
}  # fmt: skip


def _joint(measured: dict[tuple, float]):
    dev = {("static", lr, seed, width): score for (lr, width, seed), score in measured.items()}
    grid = GridPlan(sizes=[10, 20], seeds=[0, 1], embeddings=["static"], full_size=20)
    return choose_learning_rates(grid, ["static"], GRID, TUNING_SEEDS, _fake_train(dev), widths=(64, 256))


def test_the_width_is_chosen_with_the_rate_as_the_measured_dev_scores_said() -> None:
    """TREC-6: 256 dims at 3e-3 beat every 64-d setting on dev (and scored +2.6 test points at full
    size); WNUT-17: 64 dims at 3e-3 won on dev (256 scored lower at the small sizes). One rule picks both."""
    trec, wnut = _joint(TREC_STATIC), _joint(WNUT_STATIC)
    assert (trec.rates, trec.widths) == ({"static": 0.003}, {"static": 256})
    assert (wnut.rates, wnut.widths) == ({"static": 0.003}, {"static": 64})
    assert len(trec.table) == 12 and sorted(set(trec.table["projection"])) == [64, 256]
    chosen = trec.table[trec.table["chosen"]]
    assert set(zip(chosen["lr"], chosen["projection"], strict=True)) == {(0.003, 256)}
    assert {(c.size, c.seed, c.lr, c.projection) for c in trec.trials} == {
        (10, 0, None, None),  # the tuning size's cells, handed on as the grid's
        (10, 1, None, None),
    }


def test_among_tied_settings_the_narrowest_width_wins_then_the_largest_rate() -> None:
    """Dev cannot tell 64 and 256 apart: the narrower map (cheaper, never worse at the small sizes)."""
    tied = {
        (lr, width, seed): 0.70 + 0.01 * seed for lr in GRID for width in (64, 256) for seed in TUNING_SEEDS
    }
    picked = _joint(tied)
    assert (picked.rates, picked.widths) == ({"static": 0.01}, {"static": 64})
    tied |= {(lr, 64, seed): 0.60 for lr in GRID for seed in TUNING_SEEDS}  # 64 now clearly worse
    assert _joint(tied).widths == {"static": 256}


def test_trials_kept_from_an_earlier_process_are_not_trained_again_and_choose_the_same() -> None:
    grid = GridPlan(sizes=[10, 20], seeds=[0, 1], embeddings=["static"], full_size=20)
    dev = {("static", lr, seed): 0.5 + lr * 10 + 0.01 * seed for lr in GRID for seed in TUNING_SEEDS}
    whole = choose_learning_rates(grid, ["static"], GRID, TUNING_SEEDS, _fake_train(dev), widths=ONE_WIDTH)
    kept: list[int] = []
    first = whole.table.drop(columns="chosen").iloc[:4]  # the first 4 of 6 trials, as the store keeps them
    trained: list[Cell] = []

    def counting(cells: list[Cell]):
        trained.extend(cells)
        return _fake_train(dev)(cells)

    picked = choose_learning_rates(
        grid,
        ["static"],
        GRID,
        TUNING_SEEDS,
        counting,
        widths=ONE_WIDTH,
        done=first,
        keep=lambda t: kept.append(len(t)),
    )
    assert [(c.lr, c.seed) for c in trained] == [(1e-2, 0), (1e-2, 1)]  # only the two not kept
    assert kept == [5, 6]  # every trial so far, after each one
    assert picked.rates == whole.rates and picked.table.equals(whole.table)
    assert set(picked.trials) == {Cell("static", 10, 0), Cell("static", 10, 1)}  # trained now: handed on


def test_a_run_stopped_during_tuning_resumes_without_training_its_finished_trials_again(
    settings: RunSettings, tmp_path: Path, new_store: NewStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from advisor.pipeline import _execute
    from advisor.tracking import TRIALS_TABLE

    trained: list[Cell] = []
    train_one = _execute.train_one

    def stop_at_the_fourth_trial(cell: Cell, state: dict):
        if cell.lr is not None and len([c for c in trained if c.lr is not None]) == 3:
            raise RuntimeError("stopped during tuning")
        trained.append(cell)
        return train_one(cell, state)

    monkeypatch.setattr(_execute, "train_one", stop_at_the_fourth_trial)
    events: list[ProgressEvent] = []
    with pytest.raises(RuntimeError, match="stopped during tuning"):
        run_analysis(settings, progress=events.append)
    run_id = next(e.run_id for e in events if e.run_id)
    assert len(read_json_table(client_for(settings.tracking_uri), run_id, TRIALS_TABLE)) == 3
    monkeypatch.setattr(
        _execute, "train_one", lambda cell, state: trained.append(cell) or train_one(cell, state)
    )
    first_three, trained[:] = list(trained), []
    again: list[ProgressEvent] = []
    resumed = run_analysis(settings, progress=again.append)
    trials = [c for c in trained if c.lr is not None]
    assert resumed.run_id == run_id and len(trials) == 2 * 3 * len(TUNING_SEEDS) - 3
    assert not set(first_three) & set(trials)
    assert any("3 trials kept from an earlier process" in e.message for e in again)
    whole = run_analysis(replace(settings, tracking_uri=new_store(tmp_path / "whole")))
    table = read_json_table(client_for(settings.tracking_uri), run_id, TUNING_TABLE)
    uninterrupted = read_json_table(client_for(whole.tracking_uri), whole.run_id, TUNING_TABLE)
    assert _rates(settings, run_id) == known_rates(
        client_for(whole.tracking_uri).get_run(whole.run_id).data.tags
    )
    columns = ["embedding", "seed", "lr", "dev_score", "steps", "chosen"]
    order = ["embedding", "lr", "seed"]
    assert (
        table.sort_values(order)[columns]
        .reset_index(drop=True)
        .equals(uninterrupted.sort_values(order)[columns].reset_index(drop=True))
    )


def test_a_kept_trials_tag_without_its_table_trains_the_trials_again(settings: RunSettings) -> None:
    from advisor.tracking import TRIALS_TABLE, TRIALS_TAG

    events: list[ProgressEvent] = []
    with pytest.raises(RuntimeError, match="injected failure"):
        run_analysis(settings, progress=events.append, fail_after=1)
    run_id = next(e.run_id for e in events if e.run_id)
    client = client_for(settings.tracking_uri)
    assert int(client.get_run(run_id).data.tags[TRIALS_TAG]) == 2 * 3 * len(TUNING_SEEDS)
    artifacts = Path(client.get_run(run_id).info.artifact_uri.removeprefix("file://"))
    (artifacts / TRIALS_TABLE).unlink()  # the tag kept, its table lost (a store copied without artifacts)
    for name in (k for k in client.get_run(run_id).data.tags if k.startswith(LR_TAG)):
        client.delete_tag(run_id, name)  # tuning not finished: the resume tunes again
    again: list[ProgressEvent] = []
    run_analysis(settings, progress=again.append)
    tune = [e for e in again if e.stage == "tune"]
    assert tune and not any("kept from an earlier process" in e.message for e in tune)
    assert len([e for e in tune if e.cell is not None]) == 2 * 3 * len(TUNING_SEEDS)


@pytest.fixture()
def settings(
    tmp_path: Path, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> RunSettings:
    files = write_ner_splits(tmp_path / "data")
    uri = new_store(tmp_path / "mlruns")
    base = tiny_run_settings(tmp_path, files, tiny_bert_dir, tiny_vectors_file, uri)
    return replace(
        base, embeddings=["random", "static"], max_steps=4, experiment="tune", difficulty=False, workers=1
    )


def _rates(settings: RunSettings, run_id: str) -> dict[str, float]:
    tags = client_for(settings.tracking_uri).get_run(run_id).data.tags
    return known_rates(tags)


def test_a_run_chooses_stores_and_reuses_each_rate(settings: RunSettings) -> None:
    events: list[ProgressEvent] = []
    with pytest.raises(RuntimeError, match="injected failure"):
        run_analysis(settings, progress=events.append, fail_after=2)
    run_id = next(e.run_id for e in events if e.run_id)
    rates = _rates(settings, run_id)
    assert set(rates) == {"random", "static"} and all(r in GRID for r in rates.values())
    table = read_json_table(client_for(settings.tracking_uri), run_id, TUNING_TABLE)
    assert len(table) == 2 * 3 * len(TUNING_SEEDS) and set(table["size"]) == {20}
    assert any(e.stage == "tune" and "chosen on dev" in e.message for e in events)
    again: list[ProgressEvent] = []
    resumed = run_analysis(settings, progress=again.append)  # the rest of the grid, same rates
    assert resumed.run_id == run_id and not any(e.stage == "tune" for e in again)
    assert _rates(settings, run_id) == rates
    assert "learning_rates" in load_analysis(run_id, settings.tracking_uri).params


def test_a_fixed_rate_skips_the_choice(settings: RunSettings) -> None:
    events: list[ProgressEvent] = []
    outcome = run_analysis(replace(settings, lr=2e-3), progress=events.append)
    tags = client_for(settings.tracking_uri).get_run(outcome.run_id).data.tags
    assert not any(k.startswith(LR_TAG) for k in tags) and not any(e.stage == "tune" for e in events)


def test_the_chosen_rates_trials_are_logged_as_their_cells_with_the_scores_training_gives(
    settings: RunSettings, tmp_path: Path, new_store: NewStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The trials at the chosen rate are the tuning size's cells for the tuning seeds: the run hands them
    on instead of training them again, and a run that trains them again scores every cell the same."""
    from advisor.pipeline import _execute, _tune

    trained: list[Cell] = []
    train_one = _execute.train_one
    monkeypatch.setattr(
        _execute, "train_one", lambda cell, state: trained.append(cell) or train_one(cell, state)
    )
    reused = run_analysis(settings)
    counted, trained[:] = list(trained), []
    monkeypatch.setattr(_tune, "_grid_cells", lambda outcomes, rates: {})  # nothing handed on
    again = run_analysis(replace(settings, tracking_uri=new_store(tmp_path / "again")))
    grid = [c for c in trained if c.lr is None]
    assert len(grid) == 8 and len([c for c in counted if c.lr is None]) == 8 - 2 * len(TUNING_SEEDS)
    assert not [c for c in counted if c.lr is None and c.size == 20 and c.seed in TUNING_SEEDS]
    scores = [
        load_analysis(o.run_id, o.tracking_uri).curves.sort_values(["embedding", "size", "seed"])
        for o in (reused, again)
    ]
    assert scores[0][["embedding", "size", "seed", "score", "steps"]].equals(
        scores[1][["embedding", "size", "seed", "score", "steps"]]
    )


def test_a_run_with_several_widths_chooses_stores_and_trains_each_familys_width(
    settings: RunSettings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A profile with two projection widths: each family's width is chosen with its rate, tagged on
    the parent, named in every child run's params, trained in every grid cell and reused on resume."""
    from advisor.grid import profiles
    from advisor.pipeline import PROJECTION_TAG, _execute, _measure, _tune, known_widths

    name = "quick-widths-test"
    profiles.register(name)(replace(profiles.get("quick"), name=name, projections=(8, 16)))
    trained: list[tuple[Cell, int]] = []
    train_one = _execute.train_one
    monkeypatch.setattr(
        _execute,
        "train_one",
        lambda cell, state: (
            trained.append((cell, _execute.cell_config(cell, state)["projection"])) or train_one(cell, state)
        ),
    )
    served: dict[str, int] = {}  # the head each family's serving cost is measured on
    measure = _measure.measure_serving

    def measure_serving(family: str, embedding, task, labels, sample, config, *args, **kwargs):
        served[family] = config.projection
        return measure(family, embedding, task, labels, sample, config, *args, **kwargs)

    monkeypatch.setattr(_measure, "measure_serving", measure_serving)
    # whatever dev picks must reach training and serving; the wider width, not the profile's first (8),
    # is what a run that dropped the choice somewhere would get wrong
    pick = _tune._best
    monkeypatch.setattr(_tune, "_best", lambda rows: (pick(rows)[0], 16))
    try:
        wide = replace(settings, profile=name)
        with pytest.raises(RuntimeError, match="injected failure"):
            run_analysis(wide, fail_after=2)
        first = list(trained)
        outcome = run_analysis(wide)
    finally:
        profiles.unregister(name)
    client = client_for(settings.tracking_uri)
    tags = client.get_run(outcome.run_id).data.tags
    widths = known_widths(tags)
    assert widths == {"random": 16, "static": 16}
    assert all(tags[PROJECTION_TAG + family] == str(width) for family, width in widths.items())
    table = read_json_table(client, outcome.run_id, TUNING_TABLE)
    assert len(table) == 2 * 3 * 2 * len(TUNING_SEEDS) and set(table["projection"]) == {8, 16}
    trials = [(c, w) for c, w in first if c.lr is not None]
    assert len(trials) == 2 * 3 * 2 * len(TUNING_SEEDS) and all(w == c.projection for c, w in trials)
    grid = [(c, w) for c, w in trained if c.lr is None]
    assert grid and all(w == widths[c.embedding] for c, w in grid)  # both processes: the chosen width
    assert len(trials) == len([c for c, _ in trained if c.lr is not None])  # the resume tuned nothing
    children = child_runs(client, client.get_run(outcome.run_id).info.experiment_id, outcome.run_id)
    assert {int(r.data.params["projection"]) for r in children if r.data.params["family"] == "static"} == {
        widths["static"]
    }
    method = load_analysis(outcome.run_id, settings.tracking_uri)
    assert json.loads(method.params["projections"]) == widths
    assert served == widths  # served at the width it trained at, not the profile's first
