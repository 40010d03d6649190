"""The `jsonl` output format: `papers.jsonl`, one JSON object per paper, for data pipelines.

Each line has ``id, name, title, venue, year, concepts, aliases, urls, source, text`` and also
``collection``, ``seed``, ``paragraph``, ``related`` (paper ids) and ``metadata`` (what extractor
plugins added). Papers come in model order; keys in that order; UTF-8, not ASCII-escaped, so the
same model always gives the same bytes. ``text`` is the abstract as the author wrote it.

A plugin overriding a paper through ``vaultsync_render_note(subject, "jsonl", model)`` returns an
``OutputFile`` whose ``body`` is that paper's JSON object; the format checks it is one.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

from ..errors import VaultsyncError
from ..hookspecs import hookimpl
from ..records import OutputFile, Paper, RenderContext, VaultModel

FILE_NAME = "papers.jsonl"


def _plain(value: Any) -> Any:
    """Tuples and mappings as JSON lists and objects; anything else JSON lacks as a string."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def paper_record(paper: Paper, model: VaultModel) -> dict[str, Any]:
    """The JSON object for one paper."""
    abstract = paper.abstract
    collection = abstract.collection
    return {
        "id": paper.id,
        "name": paper.name,
        "title": paper.title,
        "venue": collection.venue,
        "year": collection.year,
        "concepts": list(paper.concepts),
        "fields": list(paper.fields),
        "aliases": list(paper.aliases),
        "urls": list(paper.urls),
        "source": f"{abstract.seed}, paragraph {abstract.paragraph}",
        "text": abstract.text,
        "collection": collection.name,
        "seed": abstract.seed,
        "paragraph": abstract.paragraph,
        "related": list(paper.related),
        "metadata": _plain(dict(paper.metadata)),
    }


def paper_line(paper: Paper, model: VaultModel) -> str:
    return json.dumps(paper_record(paper, model), ensure_ascii=False)


def _override_line(rendered: OutputFile, paper: Paper) -> str:
    try:
        value = json.loads(rendered.body)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise VaultsyncError(
            f"a plugin rendered paper {paper.name!r} for jsonl as something other than one JSON"
            " object; fix the plugin's vaultsync_render_note"
        )
    return json.dumps(value, ensure_ascii=False)


class JsonlFormat:
    name = "jsonl"
    description = "papers.jsonl: one JSON object per paper, for data pipelines."

    def render(self, model: VaultModel, context: RenderContext) -> Iterable[OutputFile]:
        lines = []
        for paper in model.papers:
            rendered = context.render_note(paper, self.name, model) if context.render_note else None
            lines.append(paper_line(paper, model) if rendered is None else _override_line(rendered, paper))
        body = "".join(line + "\n" for line in lines)
        yield OutputFile(FILE_NAME, body, None, None, kind="data", merge=False)


@hookimpl
def vaultsync_register_formats(register) -> None:
    register(JsonlFormat())
