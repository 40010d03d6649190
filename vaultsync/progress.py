"""How long each stage of a run took (with ``-v``), and the CPU time it used here and in workers."""

from __future__ import annotations

import logging
import time


class StageTimer:
    """Logs, as each stage ends, how long it took and the CPU time it used in this process and
    in worker processes (what a busy machine does not change). Quiet unless ``log`` debugs."""

    def __init__(self, log: logging.Logger):
        self.log = log
        self._stage: tuple[str, tuple[float, float, float]] | None = None  # under way, begun when

    def restart(self) -> None:
        self._stage = None

    def lap(self, stage: str | None) -> None:
        """``stage`` begins (None: the last one ended)."""
        if not self.log.isEnabledFor(logging.DEBUG):
            return
        now = (time.perf_counter(), time.process_time(), _children_cpu())
        if self._stage is not None:
            name, then = self._stage
            self.log.debug("%s took %.2f s (CPU: %.2f s in this process, %.2f s in workers)", name,
                           now[0] - then[0], now[1] - then[1], now[2] - then[2])
        self._stage = (stage, now) if stage is not None else None


def _children_cpu() -> float:
    """CPU seconds used by this process's finished workers (pools are shut down by then)."""
    try:
        import resource  # lazy, and not on Windows
    except ImportError:
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
