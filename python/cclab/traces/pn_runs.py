"""A sorted multiset of packet numbers with range removal, for the qlog reader's unacknowledged and lost packets.

One sorted list took O(n) per insertion or deletion in its middle, so a trace of n ``packet_lost`` records in
descending order (or n ACKs each of one packet deep in a long unacknowledged list) cost O(n²). Here the numbers
sit in sorted runs of at most ``2 * LOAD``: an insertion or a removal moves one run's elements, not all of them,
and finding the run is a bisection over the runs' last elements.
"""

from __future__ import annotations

import bisect

#: A run splits in two of LOAD numbers once it holds more than 2·LOAD.
LOAD = 512


class PnRuns:
    """Integers in ascending order, repeats kept, in runs of at most ``2 * LOAD`` (each non-empty)."""

    def __init__(self) -> None:
        self._runs: list[list[int]] = []
        #: The last (largest) number of each run.
        self._maxes: list[int] = []

    def __bool__(self) -> bool:
        return bool(self._runs)

    def last(self) -> int:
        """The largest number held (the set must not be empty)."""
        return self._maxes[-1]

    def add(self, pn: int) -> None:
        """Inserts `pn` (after any equal numbers; equal integers are alike)."""
        runs, maxes = self._runs, self._maxes
        if not runs:
            runs.append([pn])
            maxes.append(pn)
            return
        k = bisect.bisect_left(maxes, pn)
        if k == len(runs):  # above every number: the end of the last run
            k -= 1
            runs[k].append(pn)
            maxes[k] = pn
        else:
            bisect.insort(runs[k], pn)
        run = runs[k]
        if len(run) > 2 * LOAD:
            runs[k : k + 1] = [run[:LOAD], run[LOAD:]]
            maxes[k : k + 1] = [run[LOAD - 1], run[-1]]

    def pop_range(self, lo: int, hi: int) -> list[int]:
        """Removes and returns the numbers in ``lo..=hi``, ascending (none when ``lo > hi``)."""
        out: list[int] = []
        if lo > hi:  # a reversed ACK range covers nothing
            return out
        runs, maxes = self._runs, self._maxes
        k = bisect.bisect_left(maxes, lo)  # the first run that reaches lo
        while k < len(runs) and runs[k][0] <= hi:
            run = runs[k]
            i, j = bisect.bisect_left(run, lo), bisect.bisect_right(run, hi)
            out += run[i:j]
            del run[i:j]
            if run:
                maxes[k] = run[-1]
                k += 1
            else:
                del runs[k], maxes[k]
        return out
