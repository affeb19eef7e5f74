"""``--budget`` (issue 31): the duration it is written as, the rounds that fit, and the clock that stops
a run its estimate underrated. Planted cell prices and a planted clock: nothing trains here."""

from __future__ import annotations

from pathlib import Path

import pytest

import advisor.pipeline._budget as budget_module
from advisor.errors import AdvisorError
from advisor.grid import Cell, evidence_rounds, plan_grid, profiles
from advisor.pipeline import TimeBudget, parse_budget
from advisor.pipeline._budget import budget_text


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90),
        ("10m", 600),
        ("1h", 3600),
        ("1h30m", 5400),
        (" 1H 30M ", 5400),
        ("2.5m", 150),
        ("1m5s", 65),
    ],
)
def test_a_budget_is_a_duration_with_units(text: str, seconds: float) -> None:
    assert parse_budget(text) == seconds


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("10", "is not a duration"),  # no unit: minutes or seconds is a guess
        ("ten minutes", "is not a duration"),
        ("-5m", "is not a duration"),
        ("10m1h", "out of order"),
        ("1m1m", "names a unit twice"),
        ("0m", "is no time at all"),
        ("800h", "more than 30 days"),
    ],
)
def test_a_bad_budget_is_a_catalog_error_naming_the_option(text: str, problem: str) -> None:
    with pytest.raises(AdvisorError) as raised:
        parse_budget(text)
    assert raised.value.code == "E248"
    assert raised.value.message.startswith(f"--budget {text!r} ") and problem in raised.value.message
    assert raised.value.hint


def test_the_budget_is_written_back_in_words() -> None:
    assert [budget_text(s) for s in (90, 600, 5400, 3600, 45)] == [
        "1 min 30 s",
        "10 min",
        "1 h 30 min",
        "1 h",
        "45 s",
    ]


def test_run_refuses_a_bad_budget_before_creating_the_store(
    tmp_path: Path, advisor_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    rows = "".join(
        f"item {i} is {'good' if i % 2 else 'bad'},{'pos' if i % 2 else 'neg'}\n" for i in range(30)
    )
    (tmp_path / "train.csv").write_text("text,label\n" + rows, encoding="utf-8")
    store = tmp_path / "store" / "mlflow.db"
    args = [
        "run",
        "train.csv",
        "--task",
        "classify",
        "--embeddings",
        "random",
        "--sizes",
        "4",
        "--seeds",
        "1",
    ]
    code, out, err = advisor_cli(*args, "--tracking-uri", f"sqlite:///{store}", "--budget", "10")
    assert code == 2 and "Traceback" not in out + err
    assert "--budget '10' is not a duration" in err and "hint:" in err and "1h30m" in err
    assert not store.exists()


class Clock:
    """A planted wall clock: ``now()`` reads it, a trained round moves it on by its real seconds."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture()
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    planted = Clock()
    monkeypatch.setattr(budget_module, "now", planted)
    return planted


def _rounds() -> list[list[Cell]]:
    """Static and contextual, 3 sizes x 3 seeds: 9 rounds of 2 cells, evidence first."""
    grid = plan_grid(400, ["static", "contextual"], profiles.get("quick"), sizes=[100, 200, 400], seeds=3)
    return evidence_rounds(grid.cells)


def _budget(clock: Clock, seconds: float, first: bool = True, workers: int = 1) -> TimeBudget:
    """Cells priced at 10 s (static) and 30 s (contextual) at every size, 20 s of setup, 30 s of analysis."""
    prices = {
        (e, z): {"static": 10.0, "contextual": 30.0}[e]
        for e in ("static", "contextual")
        for z in (100, 200, 400)
    }
    return TimeBudget(seconds, budget_text(seconds), clock(), 30.0, 20.0, prices, workers, first=first)


def _train_while_admitted(
    budget: TimeBudget, rounds: list[list[Cell]], clock: Clock, factor: float
) -> list[Cell]:
    """Train rounds while the budget admits them; each takes ``factor`` x its planned seconds."""
    trained: list[Cell] = []
    for cells in rounds:
        if not budget.admits(cells):
            break

        def train(batch: list[Cell], cost: float = budget.cost(cells)) -> None:
            clock.t += cost * factor
            trained.extend(batch)

        budget.train(cells, train)
    return trained


def test_the_plan_takes_whole_rounds_evidence_first_while_they_fit(clock: Clock) -> None:
    rounds = _rounds()
    # 30 analysis + 20 setup + 40 per round: 5 rounds are 250 s, the 6th would be 290 s
    budget = _budget(clock, 260)
    assert budget.planned_cells(rounds) == 10
    trained = _train_while_admitted(budget, rounds, clock, factor=0.5)  # faster than planned: the plan holds
    assert trained == [c for r in rounds[:5] for c in r]
    assert [(c.size, c.seed) for c in trained[::2]] == [(400, 0), (400, 1), (400, 2), (200, 0), (200, 1)]
    assert budget.elapsed() == pytest.approx(0.5 * 220) and not budget.waived


def test_two_workers_price_a_round_at_its_slowest_share(clock: Clock) -> None:
    budget = _budget(clock, 260, workers=2)
    assert budget.cost(_rounds()[0]) == pytest.approx(20.0 + 40.0 / 2)
    assert budget.planned_cells(_rounds()) == 18  # 30 + 20 + 9 x 20 = 230 s


def test_an_underestimate_is_caught_by_the_clock_and_overruns_by_at_most_one_round(clock: Clock) -> None:
    rounds = _rounds()
    budget = _budget(clock, 260)
    trained = _train_while_admitted(budget, rounds, clock, factor=2.0)  # every round twice as slow
    # round 1: 120 s (60 planned); round 2 would end at 120 + 2 x 40 = 200 + 30 of analysis: fits;
    # round 3: 200 + 80 + 30 > 260: refused, although the plan alone admits 5 rounds
    assert len(trained) == 4 and budget.elapsed() == pytest.approx(200.0)
    assert budget.elapsed() + budget.reserve <= budget.seconds

    slow = _budget(clock, 260)
    one = _train_while_admitted(slow, rounds, clock, factor=5.0)  # 300 s for a round planned at 60
    assert len(one) == 2 and slow.elapsed() == pytest.approx(300.0)  # the one round already running


def test_a_budget_shorter_than_the_first_round_runs_it_and_says_so(clock: Clock) -> None:
    rounds = _rounds()
    budget = _budget(clock, 45)
    assert budget.planned_cells(rounds) == 2
    assert len(_train_while_admitted(budget, rounds, clock, factor=1.0)) == 2 and budget.waived

    resumed = _budget(clock, 45, first=False)  # a resume: cells of the grid are finished already
    assert not resumed.admits(rounds[1]) and not resumed.waived
    assert resumed.planned_cells(rounds[1:]) == 0


def test_finished_rounds_cost_nothing_and_a_resume_pays_no_setup_again(clock: Clock) -> None:
    budget = _budget(clock, 100, first=False)
    assert budget.admits([]) and budget.cost([]) == 0.0
    budget.train(_rounds()[0], lambda cells: None)
    assert budget.cost(_rounds()[1]) == pytest.approx(40.0)  # no setup after the first round
