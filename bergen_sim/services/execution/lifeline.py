"""Helper processes end with the process that started them: no orphans after SIGKILL, SIGTERM or Ctrl-C.

Why this is needed: the processes of a Dask ``LocalCluster`` (``--scheduler
local``) wait on sockets and pipes of their own, so when the main process
is killed (SIGKILL, or SIGTERM, whose default action skips every clean-up)
nothing tells them, and they would live on with parent PID 1, holding
hundreds of megabytes.

How: the main process marks itself (:func:`mark_parent`) before it starts
them; a helper that imports bergen-sim and sees ``BERGEN_SIM_PARENT_PID``
equal to its parent's PID starts a thread that ends it within
:data:`INTERVAL` seconds of the main process's death.  (Runs on this
machine's cores start no process at all: their workers are threads.)
"""

from __future__ import annotations

import os
import threading
import time

#: names the process whose death ends the helpers (set by the main process before it starts any)
PARENT_ENV = "BERGEN_SIM_PARENT_PID"
#: seconds between checks that the main process is alive
INTERVAL = 0.25


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def watch(pid: int, interval: float = INTERVAL) -> None:
    """End this process (``os._exit``) soon after process ``pid`` ends: a daemon thread checks it.

    When ``pid`` is this process's parent, being reparented also counts as
    its end (so a reused PID cannot keep us alive).
    """
    was_parent = os.getppid() == pid

    def loop() -> None:
        while True:
            time.sleep(interval)
            if (was_parent and os.getppid() != pid) or not alive(pid):
                os._exit(1)

    threading.Thread(target=loop, daemon=True, name="bergen-sim-lifeline").start()


def mark_parent() -> None:
    """Make this process the one whose death ends the helpers it starts from now on."""
    os.environ[PARENT_ENV] = str(os.getpid())


# In a helper started by the main process (a Dask process), watch the main process.
if os.environ.get(PARENT_ENV) == str(os.getppid()):
    watch(os.getppid())
