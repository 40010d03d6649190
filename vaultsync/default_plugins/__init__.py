"""Built-in behaviour, shipped as ordinary plugins so a user plugin can replace any of it.

Each is the module of its name, registered under that name, but where ``MODULES`` says otherwise."""

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
MODULES = {"phrases": "phrase_concepts"}  # plugin name -> its module, where they differ
