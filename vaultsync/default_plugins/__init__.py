"""Built-in behaviour, shipped as ordinary plugins so a user plugin can replace any of it."""

DEFAULT_PLUGINS = (
    "seed_text",
    "acronyms",
    "vocabulary",
    "phrases",
    "urls",
    "naming",
    "obsidian",
    "logseq",
    "jsonl",
    "digest",
)
