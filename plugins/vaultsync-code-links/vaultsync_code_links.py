"""vaultsync plugin: code and project links in an abstract become `code:` / `project:` properties.

* ``code``: repositories and model hubs (github.com, gitlab.com, bitbucket.org, codeberg.org,
  huggingface.co, plus any host listed in ``[code_links] code_hosts``), as
  ``https://host/owner/repo``;
* ``project``: other pages the paper points to (``*.github.io``, a lab's project page), except
  links to papers themselves (arXiv, DOI, OpenReview...).

Links may be written with or without ``https://``, in LaTeX ``\\url{...}`` or Markdown
``[text](...)``; trailing punctuation is not part of a link.
"""

from __future__ import annotations

import re
from typing import Iterable
from urllib.parse import urlsplit

from vaultsync.hookspecs import hookimpl
from vaultsync.records import Abstract, ExtractContext, Extraction, frozen_mapping

CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "huggingface.co")
PAPER_HOSTS = ("arxiv.org", "doi.org", "openreview.net", "aclanthology.org", "proceedings.mlr.press",
               "papers.nips.cc", "proceedings.neurips.cc", "dl.acm.org", "ieeexplore.ieee.org")

_HOST = r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}"
_URL = re.compile(
    rf"(?:https?://{_HOST}|www\.{_HOST}|(?:{'|'.join(map(re.escape, CODE_HOSTS))})(?=/)|"
    rf"[a-z0-9-]+\.github\.io)(?::\d+)?(?:/[^\s<>\"'{{}}\\\]]*)?",
    re.IGNORECASE,
)
_TRAILING = ".,;:!?)]'\""


def find_links(text: str) -> list[str]:
    """Every web link in ``text``, normalised to ``https://...``, in order, without repeats."""
    links: list[str] = []
    for match in _URL.finditer(text):
        url = match.group().rstrip(_TRAILING)
        if url.count("(") < url.count(")"):  # "(code: github.com/a/b)" closes outside the link
            url = url[: url.rindex(")")].rstrip(_TRAILING)
        if not re.match(r"https?://", url, re.IGNORECASE):
            url = "https://" + url
        if url not in links:
            links.append(url)
    return links


def _host(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host[4:] if host.startswith("www.") else host


def _on(host: str, domains: Iterable[str]) -> bool:
    return any(host == d or host.endswith("." + d) for d in domains)


def code_url(url: str) -> str:
    """``https://github.com/owner/repo/tree/main/x`` -> ``https://github.com/owner/repo``."""
    parts = urlsplit(url)
    path = [p for p in parts.path.split("/") if p]
    keep = 3 if _host(url) == "huggingface.co" and path[:1] in (["datasets"], ["spaces"]) else 2
    path = path[:keep]
    if path and path[-1].endswith(".git"):
        path[-1] = path[-1][:-4]
    return f"https://{_host(url)}/" + "/".join(path)


def classify(links: Iterable[str], code_hosts: Iterable[str] = CODE_HOSTS) -> tuple[list[str], list[str]]:
    """Split links into (code, project) lists; links to papers are neither."""
    code: list[str] = []
    project: list[str] = []
    for url in links:
        host = _host(url)
        path = [p for p in urlsplit(url).path.split("/") if p]
        if _on(host, code_hosts) and host != "github.io" and not host.endswith(".github.io"):
            if path:  # a bare "github.com" is not a repository
                repo = code_url(url)
                if repo not in code:
                    code.append(repo)
        elif not _on(host, PAPER_HOSTS) and url not in project:
            project.append(url.rstrip("/"))
    return code, project


@hookimpl
def vaultsync_extract(abstract: Abstract, context: ExtractContext) -> Extraction | None:
    options = context.options("code_links")
    hosts = (*CODE_HOSTS, *options.get("code_hosts", ()))
    code, project = classify(find_links(abstract.text), hosts)
    metadata = {key: tuple(value) for key, value in (("code", code), ("project", project)) if value}
    return Extraction(metadata=frozen_mapping(metadata)) if metadata else None
