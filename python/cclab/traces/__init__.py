"""Readers for traces the simulator and other stacks write.

`qlog` parses qlog files (0.3 JSON and JSON-SEQ, the IETF draft schema, picoquic's compact ``event_fields``
form) into one normalized event stream and columnar tables; `rundir` reads a cclab run directory (summary,
time series, traces). `cclab doctor` uses both; `cclab emulate` reuses `qlog`.
"""

from cclab.traces.qlog import QlogError, QlogTrace, iter_events, read_qlog, read_qlog_traces

__all__ = ["QlogError", "QlogTrace", "iter_events", "read_qlog", "read_qlog_traces"]
