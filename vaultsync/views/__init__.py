"""Views: files derived from the whole vault rather than from one paper or concept.

- ``canvas``: JSON Canvas concept maps (``Maps/*.canvas``), rendered with the Obsidian format;
- ``digest``: ``New papers.md`` (and optionally the daily note), updated after each sync.
"""
