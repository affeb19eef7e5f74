"""``advisor run`` on data no family can learn at these sizes finishes with a verdict that says so.

Issue 28: WNUT-17 on 300 sentences scored F1 0.0 for random and static at every size, and the run
failed in the verdict stage on an undefined R². Here the test and dev sets hold no entity at all, so
every family scores F1 0.0 everywhere: the run must finish, print and store the verdict, and
``advisor report`` must render it.
"""

from __future__ import annotations

import re
from pathlib import Path

from advisor.settings import to_argv
from tests.helpers import NewStore, tiny_run_settings, write_ner_splits

NOTHING = "no family learned this task at these sizes: every score is 0.0 — check the labels or add data"


def test_a_run_where_every_score_is_zero_finishes_with_its_verdict(
    tmp_path: Path, advisor_cli, tiny_bert_dir: Path, tiny_vectors_file: Path, new_store: NewStore
) -> None:
    files = write_ner_splits(tmp_path / "data")
    for part in ("dev", "test"):  # entities only in training: nothing to find in dev or test
        path = Path(files[part])
        path.write_text(re.sub(r"\tB-\w+", "\tO", path.read_text(encoding="utf-8")), encoding="utf-8")
    uri = new_store(tmp_path / "mlruns")
    settings = tiny_run_settings(tmp_path, files, tiny_bert_dir, tiny_vectors_file, uri)
    code, out, err = advisor_cli("run", *to_argv(settings))
    assert code == 0, err[-3000:]
    assert "Verdict: INCONCLUSIVE" in out and NOTHING in " ".join(out.split())

    from advisor.tracking import client_for, load_analysis

    analysis = load_analysis("latest", uri, settings.experiment)
    assert analysis.status == "FINISHED"
    tags = client_for(uri).get_run(analysis.run_id).data.tags
    assert tags["advisor.verdict"] == "inconclusive"
    code, out, err = advisor_cli("report", "latest", "--tracking-uri", uri, "--out", str(tmp_path / "report"))
    assert code == 0, err[-3000:]
    assert NOTHING in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
