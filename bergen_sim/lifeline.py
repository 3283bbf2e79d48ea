"""Helper processes end with the process that started them: no orphans after SIGKILL, SIGTERM or Ctrl-C.

Why this is needed: a worker pool's processes are forked from a
``forkserver``, not from the main process, and they wait on queues whose
pipes they themselves hold open, so when the main process is killed
(SIGKILL, or SIGTERM, whose default action skips every clean-up) nothing
tells them: the forkserver, the resource tracker and every worker used to
live on with parent PID 1, holding hundreds of megabytes.

How, two links of a chain:

- the forkserver imports this module (it is preloaded) and, seeing
  ``BERGEN_SIM_PARENT_PID`` equal to its parent's PID, starts a thread that
  ends it within :data:`INTERVAL` seconds of the main process's death (the
  forkserver only waits on sockets, so the thread always gets to run);
- each worker asks Linux to kill it when its parent, the forkserver, ends
  (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), which works even while the worker
  is inside compiled code holding the GIL; where there is no ``prctl`` the
  worker watches the main process itself (between chunks).

The resource tracker then sees the last holder of its pipe go and exits too.
Dask LocalCluster processes started by the main process are watched the same
way when they import bergen-sim.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

#: names the process whose death ends the helpers (set by the main process before it starts any)
PARENT_ENV = "BERGEN_SIM_PARENT_PID"
#: seconds between checks that the main process is alive
INTERVAL = 0.25
_PR_SET_PDEATHSIG = 1


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


def die_with_parent() -> bool:
    """Have Linux SIGKILL this process when its parent ends; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def mark_parent() -> None:
    """Make this process the one whose death ends the helpers it starts from now on."""
    os.environ[PARENT_ENV] = str(os.getpid())


def worker_start(main_pid: int) -> None:
    """Initializer of a pool worker: ignore Ctrl-C (the main process decides) and die with the main process."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not die_with_parent():
        watch(main_pid)
    if not alive(main_pid):  # it died before the line above took effect
        os._exit(1)


# In a helper started by the main process (the forkserver, a Dask process), watch the main process.
if os.environ.get(PARENT_ENV) == str(os.getppid()):
    watch(os.getppid())
