"""The built-in URL extractor: links in the abstract become the paper's `urls` property."""

from __future__ import annotations

from ..hookspecs import hookimpl
from ..records import Abstract, ExtractContext, Extraction, frozen_mapping


@hookimpl
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    if "://" not in abstract.text and "www." not in abstract.text:
        return None
    from ..markdown import find_urls

    urls = find_urls(abstract.text)
    return Extraction(metadata=frozen_mapping({"urls": tuple(urls)})) if urls else None


@hookimpl
def vaultsync_lessons_may_change(before: ExtractContext, after: ExtractContext) -> None:
    return None  # links are read from the text alone: no lesson changes them
