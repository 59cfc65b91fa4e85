"""How every view shows a run of many flows.

The views: the tables of ``cclab run`` and ``cclab compare``, the figures of ``cclab plot``, ``cclab report``
and ``cclab compare``, and the lines of ``cclab doctor``.

Above `MANY_FLOWS` flows a view shows the first `SHOWN_FLOWS` of them one by one and the spread over all
(min, median, max), not one row, line or legend entry per flow: a thousand of those could not be read and
took minutes to draw.
"""

#: Flows a view shows one by one; with more, the first `SHOWN_FLOWS` and the spread over all.
MANY_FLOWS = 20
#: Flows shown one by one when there are more than `MANY_FLOWS` (the first, in flow order).
SHOWN_FLOWS = 10
