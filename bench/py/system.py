"""Thread pinning and other processes' CPU load, as in the C++ harness.

A 2-vCPU guest stalls for milliseconds when a pool worker is woken on the
main thread's CPU, and a busy second core makes 2-thread numbers
meaningless; so workers are pinned and each block's load is measured.
"""
import os
import time


def list_threads():
    """Thread ids of this process, ascending (creation order, in practice)."""
    return sorted(int(t) for t in os.listdir('/proc/self/task'))


def pinning_enabled():
    return os.environ.get('PIN', '1') != '0'


def pin(tid, cpu):
    """Pins one thread (0 = the caller) to one CPU; False if that fails."""
    try:
        os.sched_setaffinity(tid, {cpu})
        return True
    except OSError:
        return False


def pin_new_threads(known, owner, log):
    """Pins threads not in `known` to CPUs 1, 0, 1, ... and records them."""
    if not pinning_enabled():
        return
    cpu = 1
    for tid in list_threads():
        if tid in known:
            continue
        known.add(tid)
        ok = pin(tid, cpu)
        log.append(f'{owner}: {tid}->cpu{cpu}' + ('' if ok else ' (failed)'))
        cpu = 1 - cpu


def _busy_seconds():
    """Busy seconds of all CPUs from /proc/stat (all but idle, iowait)."""
    with open('/proc/stat') as f:
        fields = f.readline().split()[1:9]
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields)
    return (user + nice + system + irq + softirq + steal) / os.sysconf(
        'SC_CLK_TCK')


class LoadMonitor:
    """CPUs used by other processes between start() and stop()."""

    def start(self):
        self._busy = _busy_seconds()
        self._own = time.process_time()
        self._wall = time.monotonic()

    def stop(self):
        wall = time.monotonic() - self._wall
        if wall <= 0:
            return 0.0
        other = (_busy_seconds() - self._busy) - (time.process_time() -
                                                   self._own)
        return max(0.0, other / wall)
