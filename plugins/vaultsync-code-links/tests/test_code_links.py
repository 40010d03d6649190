"""The code-links extractor: what a user sees as `code:` and `project:` properties."""

from vaultsync.records import Abstract, Collection, ExtractContext

import vaultsync_code_links as plugin


def extract(text, **options):
    abstract = Abstract(text, seed="s.txt", paragraph=1, line=1, collection=Collection("C"))
    context = ExtractContext(config={"code_links": options} if options else {})
    return plugin.vaultsync_extract(abstract=abstract, context=context)


def test_repository_links_become_code():
    result = extract(
        "Code is at https://github.com/acme/sparse-moe/tree/main/src. Weights: "
        "huggingface.co/acme/moe-7b, and data at https://huggingface.co/datasets/acme/pile-x."
    )
    assert result.metadata["code"] == (
        "https://github.com/acme/sparse-moe",
        "https://huggingface.co/acme/moe-7b",
        "https://huggingface.co/datasets/acme/pile-x",
    )
    assert "project" not in result.metadata


def test_project_pages_become_project_but_papers_do_not():
    result = extract(
        "See our project page (https://acme.github.io/moe/) and \\url{https://www.acme-lab.org/moe}; "
        "we build on https://arxiv.org/abs/2401.00001."
    )
    assert result.metadata["project"] == ("https://acme.github.io/moe", "https://www.acme-lab.org/moe")
    assert "code" not in result.metadata


def test_markdown_links_and_trailing_punctuation():
    result = extract("Released at [our repo](https://gitlab.com/acme/tool.git), see (github.com/x/y).")
    assert result.metadata["code"] == ("https://gitlab.com/acme/tool", "https://github.com/x/y")


def test_extra_code_hosts_from_config():
    result = extract("Code: https://git.example.edu/lab/tool.", code_hosts=["git.example.edu"])
    assert result.metadata["code"] == ("https://git.example.edu/lab/tool",)


def test_no_links_means_no_extraction():
    assert extract("We study e.g. sparse routing, i.e. MoE.") is None
