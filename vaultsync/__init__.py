"""vaultsync: turn streams of research abstracts into a living, linked Obsidian vault."""

__version__ = "0.1.0"
