"""kill -9 at random moments, then rerun: the vault is always consistent and nothing is lost."""

from __future__ import annotations

import os
import random
import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from vaultsync.frontmatter_io import read_frontmatter, split_note
from vaultsync.regions import region_sha
from vaultsync.write import TEMP_PREFIX

NOTES = 24
# The child syncs NOTES notes over and over, each round changing every body, one session per
# round (so kills also land in lock taking, sweeping, state commits); "final" runs one round 999.
CHILD = r"""
import sys
from vaultsync.records import OutputFile
from vaultsync.sync import VaultSession

vault, mode = sys.argv[1], sys.argv[2]
def files(r):
    return [OutputFile(f"Papers/Note {i}.md", f"# Note {i}\n\n" + f"round {r} " * (800 + 97 * i) + "\n",
                       {"vaultsync_id": f"id{i}", "type": "paper", "title": f"Note {i}", "round": r},
                       f"id{i}", "paper") for i in range(int(sys.argv[3]))]
print("ready", flush=True)
rounds = [999] if mode == "final" else range(10**6)
for r in rounds:
    with VaultSession(vault) as session:
        report = session.apply(files(r), seeds=["s.txt"])
        assert not report.errors and not report.conflicts, report
"""


def run_child(vault: Path, mode: str, env: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(vault), mode, str(NOTES)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def wait_ready(proc: subprocess.Popen, timeout: float) -> None:
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        assert sel.select(timeout), "the child did not start in time"
    assert proc.stdout.readline() == "ready\n", proc.stderr.read()


def check_consistent(vault: Path, user_text: dict[str, str]) -> None:
    """Every note whole (frontmatter readable, region complete), user text kept, ids unique."""
    ids = []
    for path in vault.rglob("*.md"):
        rel = path.relative_to(vault).as_posix()
        if rel.startswith("."):
            continue
        text = path.read_text("utf-8")
        yaml_text, rest = split_note(text)
        fm = read_frontmatter(yaml_text)
        ids.append(fm["vaultsync_id"])
        m = re.fullmatch(r"(?s)%% vaultsync:begin sha=(\w+) %%\n(.*)%% vaultsync:end %%\n(.*)", rest)
        assert m, f"{rel} is not a whole note"
        assert region_sha(m.group(2)) == m.group(1), f"{rel}: region does not match its hash"
        assert f"round {fm['round']} " in m.group(2)
        assert m.group(3) == user_text[rel], f"{rel}: user text changed"
    assert sorted(ids) == sorted(f"id{i}" for i in range(NOTES)), "missing or duplicate notes"


def test_kill_at_random_moments_then_rerun(tmp_path):
    vault = tmp_path / "vault"
    env = {**os.environ, "VAULTSYNC_STATE_DIR": str(tmp_path / "state")}
    first = run_child(vault, "final", env)
    assert first.wait(60) == 0, first.stderr.read()
    user_text = {}
    for i in range(NOTES):  # the user annotates every note below the region
        rel = f"Papers/Note {i}.md"
        user_text[rel] = f"\n## My notes on {i}\n\nKeep this: ünïcode, [[Note {(i + 1) % NOTES}]].\n"
        with open(vault / rel, "a", encoding="utf-8") as fh:
            fh.write(user_text[rel])

    rng = random.Random(4)
    for _ in range(12):  # each round kills the child at a random moment of its work
        proc = run_child(vault, "loop", env)
        try:
            wait_ready(proc, timeout=60)  # (the timeout only guards against a hang)
            time.sleep(rng.uniform(0.0, 0.4))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(60)
            proc.stdout.close()
            proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL, "the child stopped by itself"
        check_consistent(vault, user_text)

    last = run_child(vault, "final", env)
    assert last.wait(60) == 0, last.stderr.read()
    check_consistent(vault, user_text)
    assert not [p for p in vault.rglob(f"{TEMP_PREFIX}*")], "temp files left after the sweep"
    assert all(read_frontmatter(split_note(p.read_text())[0])["round"] == 999
               for p in (vault / "Papers").glob("*.md"))
