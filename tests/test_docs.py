"""The plugin docs stay true: every hook documented with its signature, every example valid."""

from __future__ import annotations

import inspect
import re
import types
from pathlib import Path

import pluggy
import pytest

from vaultsync import hookspecs

DOCS = (Path(__file__).parent.parent / "docs" / "plugins.md").read_text(encoding="utf-8")
HEADING = re.compile(r"^### (vaultsync_\w+)\(([^)]*)\)\s*$", re.MULTILINE)
DOCUMENTED = {name: [a.strip() for a in args.split(",") if a.strip()] for name, args in HEADING.findall(DOCS)}
HOOKS = {
    name: spec
    for name, spec in vars(hookspecs).items()
    if callable(spec) and hasattr(spec, "vaultsync_spec")
}


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.DOTALL)


def section(name: str) -> str:
    start = DOCS.index(f"### {name}(")
    end = DOCS.find("\n### ", start + 1)
    return DOCS[start:] if end == -1 else DOCS[start:end]


def test_hooks_are_found():
    assert len(HOOKS) >= 6


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_hook_is_documented_with_its_signature(name):
    assert name in DOCUMENTED, f"docs/plugins.md has no '### {name}(...)' section"
    assert DOCUMENTED[name] == list(inspect.signature(HOOKS[name]).parameters), (
        f"docs/plugins.md documents {name} with a different signature"
    )


def test_no_documented_hook_is_missing_from_the_specs():
    assert set(DOCUMENTED) <= set(HOOKS)


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_hook_section_has_a_valid_example(name):
    [example] = python_blocks(section(name))
    module = types.ModuleType(f"example_{name}")
    exec(compile(example, f"docs/plugins.md ({name})", "exec"), module.__dict__)
    pm = pluggy.PluginManager("vaultsync")
    pm.add_hookspecs(hookspecs)
    pm.register(module)  # pluggy checks the argument names against the spec
    assert [c.name for c in pm.get_hookcallers(module)] == [name]


def test_every_python_block_compiles():
    for number, block in enumerate(python_blocks(DOCS), 1):
        compile(block, f"docs/plugins.md python block {number}", "exec")
