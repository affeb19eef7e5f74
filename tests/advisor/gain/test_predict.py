"""Reading unlabelled production text and forecasting the gain on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.errors import InputError
from advisor.gain import GainModel, predict_gain, read_unlabelled


def test_lines_are_tokenised_and_blank_lines_skipped(tmp_path: Path) -> None:
    path = tmp_path / "traffic.txt"
    path.write_text("John went to Paris.\n\nHe said: hi!\n", encoding="utf-8")
    text = read_unlabelled(path, "ner")
    assert text.format == "lines"
    assert text.tokens == [["John", "went", "to", "Paris", "."], ["He", "said", ":", "hi", "!"]]
    assert text.line_numbers == [1, 3]


@pytest.mark.parametrize("tagged", [False, True])
def test_conll_with_or_without_tags(tmp_path: Path, tagged: bool) -> None:
    rows = [("John", "B-PER"), ("went", "O"), ("", ""), ("Mary", "B-PER"), ("sang", "O")]
    path = tmp_path / "traffic.conll"
    path.write_text("\n".join(f"{t}\t{g}" if tagged and t else t for t, g in rows) + "\n", encoding="utf-8")
    text = read_unlabelled(path, "ner")
    assert text.format == "conll"
    assert text.tokens == [["John", "went"], ["Mary", "sang"]]
    assert text.line_numbers == [1, 4]


def test_broken_conll_row_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.conll"
    good = "".join(f"w{i}\tO\nv{i}\tB-PER\n\n" for i in range(6))
    path.write_text("John\tB-PER\nwent\tO\n\nMary\tB-PER\nsang O extra\n\n" + good, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_unlabelled(path, "ner")
    assert f"{path}:5:" in caught.value.render()


def test_empty_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("\n\n", encoding="utf-8")
    with pytest.raises(InputError, match="empty"):
        read_unlabelled(path, "classify")


def test_forecast_covers_every_unit_and_its_interval_widens_with_model_error(
    planted_classify_result, texts
) -> None:
    model = GainModel.from_result(planted_classify_result)
    tokens = texts(True, 30)
    forecast = predict_gain(model, tokens, n_boot=200)
    assert forecast.n_units == len(tokens) and len(forecast.per_unit) == 30
    assert forecast.model_sd["gain"] > 0 and forecast.sampling_sd["gain"] > 0
    assert forecast.gain_lo < forecast.expected_gain < forecast.gain_hi
    no_model_error = GainModel(
        model.statistics, model.booster, model.helps_booster, None, {**model.meta, "model_error": {}}
    )
    narrower = predict_gain(no_model_error, tokens, n_boot=200)
    assert narrower.expected_gain == pytest.approx(forecast.expected_gain)
    assert narrower.gain_hi - narrower.gain_lo < forecast.gain_hi - forecast.gain_lo
    assert any("Expected gain" in line for line in forecast.summary_lines())
