"""Benchmark (issue 26): does every cell converge under the default budget? A 4x budget must not move it.

    nice -n 5 python experiments/bench_convergence.py wnut17 trec subj [--profile default]
        [--embeddings random,static,contextual] [--out DIR] [--workers 2] [--against 4x|floor=N]

For each dataset two ``advisor run`` analyses of the profile's grid, same seeds, same feature cache:
the profile's budget, and a 4x budget (step ceiling x 4, patience x 2; the floor and the number of
learning-rate halvings unchanged). One row per (family, size): both scores (mean ± seed std over
seeds, primary metric x 100), their difference, the pooled seed std, the steps taken (median over
seeds) and the cells that hit the ceiling while dev still improved ("under-trained"), then the line
``max |default − 4x|: N pts``. A cell converged when ``|default − 4x| <= max(1.0 pt, pooled seed std)``.

That rule (the issue's) fails a converged cell by chance: two 3-seed means differ by ~0.8 of one
seed's std with no budget effect at all. Both budgets train the same seeds (same subsets, same
initial weights), so each row also gets the *paired* test: the per-seed differences' mean over its
standard error, ``t``, and a line counting the rows where the 4x budget scores higher beyond noise
(one-sided paired t-test, Holm-corrected over all rows of the dataset) — the under-training signal.

The audit measures the *budget*, so both columns train at the same learning rate. Each analysis
chooses its rates on dev (``advisor.pipeline._tune``); where the 4x analysis chose another rate for
a family than the default one did, that family is trained once more under the 4x budget at the
default's rate (a third analysis of that family alone, the same sizes and seeds) and that is the
``4x`` column. The re-tuned 4x score is still printed (column ``4x re-tuned``), because a rate
choice that flips with the budget is a variance of its own that the budget comparison does not show.

``--against floor=N`` audits the other end of the rule (issue 30's cheapest lever): the profile with
its step floor lowered to ``N`` (ceiling and patience unchanged) in place of the 4x budget. The same
rows, the same tolerance; the paired test then asks whether the *default* (the larger budget) scores
higher beyond noise, i.e. whether the lower floor under-trains. If no row moves, the floor can come
down and every small cell gets cheaper without changing what is measured.

``--against projection=N`` asks issue 26's other open question: does one projection width in front
of every family (it widens 50-d GloVe and squeezes 384-d MiniLM and 800-d random vectors) cost a
family points? The profile with the one width ``N`` (budget unchanged; its rate alone chosen on dev)
in place of the 4x budget; where ``N`` is wider than the profile's narrowest, the paired test asks
whether the wider map scores higher beyond noise. Run against the ``quick`` profile (one width, 64)
it measures what a fixed width costs; against ``default`` (64 and 256 chosen on dev per family) it
asks whether the dev choice lost anything against one fixed width. On TREC-6 (one width, 64, then)
static gained beyond the seed spread at 256, so the width is now chosen on dev with the rate.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
from mlflow.tracking import MlflowClient
from rich.console import Console
from rich.table import Table
from scipy import stats

from advisor.grid import Profile, profiles
from advisor.runner import run_analysis
from advisor.settings import RunSettings
from advisor.tracking import known_rates, known_widths, load_analysis

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _interrupt import interruptible  # experiments/ is on sys.path when a script runs
from bench_layers import DATA, DATASETS  # the datasets table, kept once

#: Datasets beyond bench_layers' table (SUBJ has no test split: the tool's seeded 10 % split).
EXTRA = {"subj": {"task": "classify", "data": "subj/subj.all", "dev": None, "test": None}}
TOLERANCE_PTS = 1.0


@dataclass(frozen=True)
class Variant:
    """What the profile's default is compared with: 4x (ceiling x 4, patience x 2), a lower floor, or
    another projection width."""

    label: str  # how the tables name it: "4x", "floor 300", "projection 256"
    profile: str  # the profile its analyses run under (a lowered floor is a profile of its own)
    scale: int = 1  # ceiling x scale, patience x 2 when scale > 1
    larger: bool = True  # whether it is the larger budget/width (4x) or the smaller one (a lower floor)
    how: str = "ceiling x 4, patience x 2"  # what changes, as the table's title says it
    cause: str = "under-training"  # what would make the larger side score higher

    @property
    def key(self) -> str:
        """Its folder and experiment name."""
        return self.label.replace(" ", "")

    @property
    def larger_side(self) -> str:
        """The analysis with the larger budget or width, as the tables name it: the one `cause` would favour."""
        return self.label if self.larger else "default"


def parse_variant(text: str, profile: str) -> Variant:
    """``4x``, ``floor=N`` (N below the profile's floor) or ``projection=N`` (the one width N where the
    profile has others: its rate alone is chosen on dev); a floor or a width is registered as a profile
    of its own (``<profile>-floorN``, ``-projN``)."""
    if text == "4x":
        return Variant("4x", profile, scale=4)
    base = profiles.get(profile)
    floor, width = re.fullmatch(r"floor=(\d+)", text), re.fullmatch(r"projection=(\d+)", text)
    if floor and 0 < int(floor.group(1)) < base.min_steps:
        steps = int(floor.group(1))
        name = _registered(base, f"floor{steps}", f"a floor of {steps} steps", min_steps=steps)
        return Variant(f"floor {steps}", name, larger=False, how="ceiling and patience unchanged")
    if width and 0 < int(width.group(1)) and (int(width.group(1)),) != base.projections:
        n = int(width.group(1))
        name = _registered(base, f"proj{n}", f"a {n}-d projection", projections=(n,))
        wider = n > min(base.projections)
        cause = "a too narrow projection" if wider else "a too wide projection"
        return Variant(f"projection {n}", name, larger=wider, how="budget unchanged", cause=cause)
    raise SystemExit(
        f"--against: 4x, floor=N with 0 < N < {base.min_steps} (the {profile} floor) or projection=N "
        f"with N > 0, not the {profile} profile's one width {base.projections}, not {text!r}"
    )


def _registered(base: Profile, suffix: str, what: str, **changes: Any) -> str:
    """The name of ``base`` with ``changes``, registered once as a profile of its own."""
    name = f"{base.name}-{suffix}"
    if name not in profiles.names():
        profiles.register(name, description=f"{base.name} with {what}")(replace(base, name=name, **changes))
    return name


def settings_for(
    name: str, args: argparse.Namespace, budget: str, variant: Variant | None = None
) -> RunSettings:
    """One analysis: the profile's default budget (``variant`` None) or the variant's, stored under ``budget``."""
    spec = {**DATASETS, **EXTRA}[name]
    store = args.out / name / budget
    store.mkdir(parents=True, exist_ok=True)
    profile = profiles.get(variant.profile if variant else args.profile)
    scale = variant.scale if variant else 1
    return RunSettings(
        data=str(args.data / str(spec["data"])),
        task=str(spec["task"]),
        dev=str(args.data / str(spec["dev"])) if spec["dev"] else None,
        test=str(args.data / str(spec["test"])) if spec["test"] else None,
        embeddings=args.embeddings,
        profile=profile.name,
        max_steps=profile.max_steps * scale,
        patience=profile.patience * (2 if scale > 1 else 1),
        tracking_uri=f"sqlite:///{store}/mlflow.db",
        experiment=f"convergence-{name}-{budget}",
        cache_dir=str(args.out / "cache"),
        difficulty=False,
        workers=args.workers,
    )


@dataclass
class Curves:
    """The cells of one analysis (score, steps, under_trained per embedding/size/seed), the rate and
    projection width of each family, its wall time."""

    cells: pd.DataFrame
    rates: dict[str, float]
    seconds: float
    widths: dict[str, int] = field(default_factory=dict)


def run_curves(settings: RunSettings) -> Curves:
    """Run (or resume) one analysis and read back its cells and the learning rate of each family."""
    started = time.perf_counter()
    outcome = run_analysis(settings)
    seconds = time.perf_counter() - started
    cells = load_analysis(outcome.run_id, outcome.tracking_uri).curves
    tags = MlflowClient(outcome.tracking_uri).get_run(outcome.run_id).data.tags
    rates = known_rates(tags) or dict.fromkeys(cells["embedding"].unique(), settings.lr)
    return Curves(cells, rates, seconds, known_widths(tags))


def at_default_rates(
    name: str, args: argparse.Namespace, default: Curves, retuned: Curves, variant: Variant
) -> Curves:
    """The variant's cells at the default analysis's settings: a family whose rate (or, where the
    profile tries several, projection width) flipped is trained again at the default's."""
    flipped = [f for f in default.rates if _setting(retuned, f) != _setting(default, f)]
    cells, seconds = retuned.cells[~retuned.cells["embedding"].isin(flipped)], retuned.seconds
    sizes = sorted(int(size) for size in default.cells["size"].unique())
    for family in flipped:
        lr, width = _setting(default, family)
        folder = f"{variant.key}-{family}-lr{lr:g}" + (f"-proj{width}" if width else "")
        settings = replace(
            settings_for(name, args, folder, variant),
            embeddings=[family],
            lr=lr,
            projection=width,
            sizes=sizes,
        )
        again = run_curves(settings)
        cells, seconds = pd.concat([cells, again.cells], ignore_index=True), seconds + again.seconds
    rates = {**retuned.rates, **{f: default.rates[f] for f in flipped}}
    widths = {**retuned.widths, **{f: default.widths[f] for f in flipped if f in default.widths}}
    return Curves(cells, rates, seconds, widths)


def _setting(curves: Curves, family: str) -> tuple[float | None, int | None]:
    """The rate and projection width ``family`` trained at (the width: None where it was not chosen)."""
    return curves.rates.get(family), curves.widths.get(family)


def _summary(curves: pd.DataFrame) -> pd.DataFrame:
    grouped = curves.groupby(["embedding", "size"])
    return pd.DataFrame(
        {
            "mean": grouped["score"].mean() * 100,
            "std": grouped["score"].std(ddof=1).fillna(0.0) * 100,
            "steps": grouped["steps"].median(),
            "under": grouped["under_trained"].sum(),
            "seeds": grouped["score"].size(),
        }
    )


def paired(default: pd.DataFrame, larger: pd.DataFrame, variant_larger: bool = True) -> pd.DataFrame:
    """Per (family, size): the paired t of default - variant over the seeds both trained, and its one-sided
    p-value for "the larger budget is higher" (the variant when ``variant_larger``, else the default; the
    column keeps its name) — nan where fewer than two seeds pair up or the differences are all equal."""
    keys = ["embedding", "size", "seed"]
    both = default[[*keys, "score"]].merge(larger[[*keys, "score"]], on=keys, suffixes=("_d", "_4x"))
    both["d"] = (both["score_d"] - both["score_4x"]) * 100
    grouped = both.groupby(["embedding", "size"])["d"]
    out = pd.DataFrame({"n": grouped.size(), "mean": grouped.mean(), "sd": grouped.std(ddof=1)})
    se = out["sd"] / out["n"] ** 0.5
    out["t"] = (out["mean"] / se).where(se > 0)
    tail = stats.t.cdf if variant_larger else stats.t.sf
    out["p_4x_higher"] = [
        float(tail(t, n - 1)) if math.isfinite(t) and n > 1 else float("nan")
        for t, n in zip(out["t"], out["n"], strict=True)
    ]
    return out[["t", "p_4x_higher"]]


def holm(p_values: pd.Series, alpha: float = 0.05) -> pd.Series:
    """True where Holm's step-down rule rejects at family-wise level ``alpha`` (nan p-values never do)."""
    order = p_values.dropna().sort_values()
    rejected = pd.Series(False, index=p_values.index)
    for rank, (index, p) in enumerate(order.items()):
        if p > alpha / (len(order) - rank):
            break
        rejected[index] = True
    return rejected


def compare(default: Curves, larger: Curves, retuned: Curves, variant: Variant) -> pd.DataFrame:
    """One row per (family, size): both budgets at one rate, the difference, the pooled seed std, converged
    or not; and the 4x score under the 4x analysis's own rate choice."""
    a, b = _summary(default.cells), _summary(larger.cells)
    rows = a.add_suffix("_default").join(b.add_suffix("_4x"), how="inner")
    rows["retuned_4x"] = _summary(retuned.cells)["mean"].reindex(rows.index)
    rows["diff"] = rows["mean_default"] - rows["mean_4x"]
    rows["pooled_std"] = ((rows["std_default"] ** 2 + rows["std_4x"] ** 2) / 2) ** 0.5
    rows["converged"] = rows["diff"].abs() <= rows["pooled_std"].clip(lower=TOLERANCE_PTS)
    rows = rows.join(paired(default.cells, larger.cells, variant.larger), how="left")
    rows["higher_4x"] = holm(rows["p_4x_higher"])
    rows = rows.reset_index()
    rows["rates"] = [_rates(default, retuned, family, variant.label) for family in rows["embedding"]]
    return rows


def _rates(default: Curves, retuned: Curves, family: str, label: str) -> str:
    """The setting both budgets trained at, and the variant analysis's own choice where it differed."""
    used, own = _setting(default, family), _setting(retuned, family)
    return _named(*used) if own == used else f"{_named(*used)} ({label} chose {_named(*own)})"


def _named(lr: float | None, width: int | None) -> str:
    """A rate, with its projection width where one was chosen: ``0.003`` or ``0.003 @256``."""
    return f"{lr:g}" + (f" @{width}" if width else "")


def _table(name: str, rows: pd.DataFrame, seconds: dict[str, float], variant: Variant) -> Table:
    v = variant.label
    table = Table(title=f"{name}: default vs {v} ({variant.how}); score x 100, mean ± seed std")
    columns = ("family", "size", "lr", "default", v, "diff", "seed std", f"steps def/{v}", "under-trained")
    for column in (*columns, "ok", "paired t", f"{v} re-tuned"):
        table.add_column(column, justify="left" if column in ("family", "lr") else "right")
    for r in rows.itertuples():
        table.add_row(
            r.embedding,
            f"{r.size:,}",
            r.rates,
            f"{r.mean_default:.1f} ± {r.std_default:.1f}",
            f"{r.mean_4x:.1f} ± {r.std_4x:.1f}",
            f"{r.diff:+.1f}",
            f"{r.pooled_std:.1f}",
            f"{r.steps_default:,.0f} / {r.steps_4x:,.0f}",
            f"{r.under_default:.0f} / {r.under_4x:.0f}",
            "yes" if r.converged else "NO",
            "–" if not math.isfinite(r.t) else f"{r.t:+.1f}" + (" *" if r.higher_4x else ""),
            "" if "chose" not in r.rates else f"{r.retuned_4x:.1f}",
        )
    walls = ", ".join(f"{budget} {s:,.0f} s" for budget, s in seconds.items())
    table.caption = (
        f"wall: {walls}; paired t: mean of the per-seed (default − {v}) differences over its standard error, "
        f"* = {variant.larger_side} higher beyond noise (one-sided, Holm over the rows); "
        f"{v} re-tuned: the {v} analysis's own rate choice (shown where it differs)"
    )
    return table


def _direction(failing: pd.DataFrame, variant: Variant) -> str:
    """Under-training predicts the larger budget scoring *higher*; the other direction is selection noise."""
    v = variant.label
    higher, lower = int((failing["diff"] < 0).sum()), int((failing["diff"] > 0).sum())
    return (
        f"  beyond tolerance: {v} higher in {higher}, {v} lower in {lower} "
        f"({variant.cause} would make {variant.larger_side} higher)"
    )


def _under_trained_beyond_noise(rows: pd.DataFrame, variant: Variant) -> str:
    """The rows where the larger budget paid beyond seed noise: the ones the smaller budget under-trains."""
    hits = rows[rows["higher_4x"]]
    named = ", ".join(f"{r.embedding} {r.size:,}" for r in hits.itertuples()) or "none"
    return f"  {variant.larger_side} higher beyond noise (paired, one-sided, Holm at 5 % over {len(rows)} rows): {named}"


def _steps_line(default: pd.DataFrame, other: pd.DataFrame, label: str) -> str:
    """What the variant costs in optimizer steps, summed over the cells both analyses trained."""
    keys = ["embedding", "size", "seed"]
    both = default[[*keys, "steps"]].merge(other[[*keys, "steps"]], on=keys, suffixes=("_d", "_v"))
    a, b = float(both["steps_d"].sum()), float(both["steps_v"].sum())
    share = f" ({b / a:.0%} of the default)" if a > 0 else ""
    return f"  optimizer steps over {len(both)} cells: default {a:,.0f}, {label} {b:,.0f}{share}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", choices=sorted({*DATASETS, *EXTRA}))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--profile", default="default")
    parser.add_argument(
        "--embeddings", type=lambda s: s.split(","), default=["random", "static", "contextual"]
    )
    parser.add_argument("--out", type=Path, default=Path(".bench/convergence"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--against", default="4x", help="4x (default), floor=N (a lower step floor) or projection=N (a width)"
    )
    args = parser.parse_args()
    variant = parse_variant(args.against, args.profile)
    console = Console(width=140)
    worst, v = 0.0, variant.label
    for name in args.datasets:
        default = run_curves(settings_for(name, args, "default"))
        retuned = run_curves(settings_for(name, args, variant.key, variant))
        other = at_default_rates(name, args, default, retuned, variant)
        rows = compare(default, other, retuned, variant)
        seconds = {"default": default.seconds, v: retuned.seconds, f"{v} at default rates": other.seconds}
        console.print(_table(name, rows, seconds, variant))
        worst = max(worst, float(rows["diff"].abs().max()))
        failing = rows[~rows["converged"]]
        outcome = "converged" if variant.scale > 1 else f"unchanged by the {v}"
        console.print(f"{name}: {len(rows) - len(failing)} of {len(rows)} (family, size) {outcome}")
        console.print(_direction(failing, variant))
        console.print(_under_trained_beyond_noise(rows, variant))
        console.print(_steps_line(default.cells, other.cells, v))
    load = os.getloadavg()[0]
    console.print(f"max |default − {v}|: {worst:.1f} pts  (load average {load:.2f}, {os.cpu_count()} cores)")
    if not math.isfinite(worst):
        raise SystemExit(1)


if __name__ == "__main__":
    interruptible(main)
