"""Note names and titles, one test per kind of error the blind judges found in them."""

from vaultsync.default_plugins.naming import paper_name
from vaultsync.default_plugins.titles import gist_of

BACKGROUND = "Retrieval systems are widely deployed, yet how to configure them remains unclear. "


def test_a_gist_is_never_cut_between_the_items_of_a_list():
    gist = gist_of("a toolkit for systematically auditing retrieval pipelines across many different embedding models, "
                   "index sizes, chunk sizes, and query distributions drawn from real users")
    assert gist == "a toolkit for systematically auditing retrieval pipelines"


def test_a_gist_is_never_cut_inside_a_range_of_numbers():
    gist = gist_of("a family of open speech translation models spanning 0.1B to 9B parameters trained on thirty "
                   "thousand hours of public multilingual speech data")
    assert "0.1B to 9B" in gist


def test_a_title_does_not_say_the_long_form_twice():
    text = BACKGROUND + ("We introduce Multi Document Retrieval module for Question Answering (MDR-QA), which incorporates "
                         "a novel Multi Document Retrieval (MDR) module to merge passages across sources at query time.")
    assert paper_name(text).title == "MDR-QA — Multi Document Retrieval module for Question Answering"
