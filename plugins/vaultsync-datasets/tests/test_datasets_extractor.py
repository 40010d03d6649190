"""The datasets extractor: what a user sees as the `datasets:` property and dataset concepts."""

from vaultsync.records import Abstract, Collection, ExtractContext

import vaultsync_datasets as plugin


def extract(text, **options):
    abstract = Abstract(text, seed="s.txt", paragraph=1, line=1, collection=Collection("C"))
    context = ExtractContext(config={"datasets": options} if options else {})
    return plugin.vaultsync_extract(abstract=abstract, context=context)


def test_curated_datasets_are_found_with_their_spellings():
    result = extract("We pretrain on ImageNet-1k and evaluate on MS COCO and CIFAR10.")
    assert result.metadata["datasets"] == ("ImageNet", "COCO", "CIFAR-10")
    coco = next(m for m in result.concepts if m.name == "COCO")
    assert coco.kind == "dataset" and coco.surfaces == ("MS COCO",) and coco.canonical


def test_coined_benchmarks_and_datasets_are_found_by_pattern():
    result = extract(
        "We introduce the new AVI-Bench benchmark and the WildVid-2K dataset; "
        "results on the standard video benchmark and our synthetic dataset improve."
    )
    assert result.metadata["datasets"] == ("AVI-Bench", "WildVid-2K")
    assert all(m.kind == "dataset" for m in result.concepts)


def test_a_known_name_is_not_found_twice_by_pattern():
    result = extract("On the COCO benchmark, and again on COCO.")
    assert result.metadata["datasets"] == ("COCO",)
    assert result.concepts[0].surfaces == ("COCO",)


def test_whole_words_only():
    assert extract("A MATHEMATICAL view of GLUEd models and MNISTs.") is None


def test_config_adds_names_and_can_turn_patterns_off():
    result = extract("Trained on OurCorpus and the Foo-10 benchmark.", extra=["OurCorpus"], patterns=False)
    assert result.metadata["datasets"] == ("OurCorpus",)
