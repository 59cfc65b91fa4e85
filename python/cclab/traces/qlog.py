"""qlog reader: any qlog flavour in, one normalized event stream and columnar tables out.

Flavours read (detected from the file, not its name):

- **JSON-SEQ** (RFC 7464, ``.sqlog``): a header record, then one event per record; qlog 0.3 (our default,
  quinn's ``qlog`` crate) or the IETF draft schema (``quic:`` names, as quiche and ``--qlog-format ietf`` write).
- **JSON** (``.qlog``): one document ``{"traces": [{…, "events": [...]}]}``; events are objects (qlog 0.3) or
  arrays described by the trace's ``event_fields`` (picoquic's form, times in ``configuration.time_units``).

Either may be gzip-compressed (``.sqlog.gz``, ``[output] qlog_compression = "gzip"``): the gzip magic bytes are
recognised whatever the name, and the file is decompressed as it is read (Python's ``gzip``). Both are parsed
incrementally: a JSON-SEQ file line by line, a JSON document one event at a time with
`json.JSONDecoder.raw_decode`, so memory grows with the tables kept, not with the file. `read_qlog` reads the
first trace of a JSON document, `read_qlog_traces` every one (each header read key by key once the previous
events array closes). A malformed or truncated record raises `QlogError` naming the file and line.

JSON-SEQ files are read in Rust (``cclab._core.read_qlog_seq``, ``crates/cclab-sim/src/qlog/read/``), 12-14
times faster, into the same tables float for float; this module stays the reference, reads JSON documents, and
reads any file the Rust reader declines or finds bad (so errors keep this module's messages).

API: `iter_events(path)` yields `Event` (time in seconds, short name, data dict, line) of the first trace;
`read_qlog(path)` builds a `QlogTrace` with the tables below, times in seconds, sizes in bytes, rates in bit/s.
"""

from __future__ import annotations

import gzip
import json
import zlib
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from cclab.traces.pn_runs import PnRuns

#: The first two bytes of a gzip member (RFC 1952 §2.3.1).
GZIP_MAGIC = b"\x1f\x8b"
#: What reading a damaged or truncated gzip file raises (BadGzipFile is an OSError).
GZIP_ERRORS = (EOFError, OSError, zlib.error)
#: The record separator of JSON-SEQ (RFC 7464 §2).
RS = "\x1e"
#: Characters read at a time from a JSON document.
CHUNK = 1 << 16
#: A decode error this close to the end of the buffered text may be an event cut by the chunk boundary.
MARGIN = 4096
#: Short event names of the IETF schema that differ from qlog 0.3's (quic-events-12 §1 vs draft-02).
IETF_ALIASES = {"recovery_metrics_updated": "metrics_updated"}
#: qlog 0.3 names whose short form would collide with another event's (transport:parameters_set).
V03_ALIASES = {"recovery:parameters_set": "recovery_parameters_set"}
#: Metrics that carry a time (converted to seconds with the trace's time unit) and their column names.
RTT_FIELDS = {"smoothed_rtt": "srtt_s", "min_rtt": "min_rtt_s", "latest_rtt": "latest_rtt_s"}
#: Metrics in bytes or bit/s, and their columns; picoquic writes ``cwnd``, the schemas ``congestion_window``.
SIZE_FIELDS = {
    "congestion_window": "cwnd_bytes",
    "cwnd": "cwnd_bytes",
    "bytes_in_flight": "bytes_in_flight",
    "ssthresh": "ssthresh_bytes",
    "pacing_rate": "pacing_rate_bps",
}
METRIC_COLUMNS = ("cwnd_bytes", "bytes_in_flight", "ssthresh_bytes", "pacing_rate_bps", *RTT_FIELDS.values())
#: Mean sent packet size (bytes) above which a trace without frames is the data sender (half of QUIC's minimum
#: 1200-byte datagram, RFC 9000 §14; ACK-only packets are tens of bytes).
DATA_PACKET_MIN_MEAN = 600.0
#: RFC 9002 §6.2.2's initial RTT, s: a first smoothed RTT of this number means the trace writes seconds.
INITIAL_RTT_S = 0.333
#: Frame type of ACK_FREQUENCY (draft-ietf-quic-ack-frequency §4), as ``raw_frame_type``/``frame_type_bytes``.
ACK_FREQUENCY_TYPE = 0xAF
#: Frames that do not make a packet ack-eliciting (RFC 9002 §2).
NON_ELICITING = {"ack", "padding", "connection_close"}


class QlogError(ValueError):
    """A qlog file that cannot be read; the message names the file and, when known, the line."""


class Event(NamedTuple):
    """One event: `time_s` since the trace's reference, short `name` (``packet_sent``), its `data`, its line.

    A named tuple, not a frozen dataclass: one is built per event, and a tuple is built several times faster.
    """

    time_s: float
    name: str
    data: dict[str, Any]
    line: int


@dataclass
class QlogTrace:
    """A qlog trace as columnar tables (numpy arrays of equal length within a table).

    - `sent`, `received` (1-RTT packets; Initial and Handshake ones are left out): ``time_s``, ``pn``,
      ``size`` (bytes; ``raw.length`` or ``header.packet_size``),
      ``stream_bytes``, ``ack_eliciting`` (0/1), ``ack_only`` (0/1: an ACK with only PADDING or PING beside it —
      receivers add a PING to an ACK now and then to learn which ACKs arrived, RFC 9000 §13.2.4 — no data).
    - `metrics`: ``time_s`` and `METRIC_COLUMNS`, each carried forward from its last update (NaN before).
    - `lost`: ``time_s``, ``pn``; `lost_triggers` the matching trigger strings.
    - `acked_after_loss`: ``time_s``, ``pn`` of packets acknowledged after being declared lost (spurious losses),
      from this endpoint's received ACK frames.
    - `ack_frequency`: ``time_s``, ``threshold`` (ack-eliciting packets per ACK), ``max_ack_delay_s``, from the
      ACK_FREQUENCY frames this endpoint sent.
    - `acks` (the ACK frames this endpoint received, with ranges): ``time_s``, ``size`` (bytes of the packet
      that carried it), ``newly_acked`` (packets this endpoint sent and no earlier ACK covered),
      ``newly_acked_bytes``, ``largest_pn``, ``largest_sent_s`` (send time of the largest newly acknowledged
      packet, NaN when none is new).
    - `pto_expired_s`: times of PTO expiries (``loss_timer_updated`` ``expired`` events with timer ``pto``,
      losses with trigger ``pto_expired``, or increases of ``metrics_updated``'s ``pto_count``).
    - `nofeedback_expired_s`: times the TFRC nofeedback timer fired (``loss_timer_updated`` ``expired`` with
      timer ``nofeedback``, which cclab's DCCP/CCID-3 sender writes).
    - `states`: (time_s, new state) pairs of ``congestion_state_updated``.
    """

    path: Path
    #: Place of the trace in its file, from 0 (a JSON document may hold several).
    index: int = 0
    vantage: str = ""
    protocol: str = ""
    schema: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    sent: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    received: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    metrics: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    lost: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    lost_triggers: list[str] = field(default_factory=list)
    acked_after_loss: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    ack_frequency: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    acks: dict[str, npt.NDArray[np.float64]] = field(default_factory=dict)
    pto_expired_s: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    nofeedback_expired_s: npt.NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    states: list[tuple[float, str]] = field(default_factory=list)
    event_counts: dict[str, int] = field(default_factory=dict)

    @property
    def stream_bytes_sent(self) -> float:
        """Stream payload bytes this endpoint sent (retransmissions included)."""
        return float(self.sent["stream_bytes"].sum()) if len(self.sent.get("stream_bytes", ())) else 0.0

    @property
    def stream_bytes_received(self) -> float:
        """Stream payload bytes this endpoint received."""
        return float(self.received["stream_bytes"].sum()) if len(self.received.get("stream_bytes", ())) else 0.0

    @property
    def is_data_sender(self) -> bool:
        """The endpoint that sent more stream data than it received (the vantage point's name cannot tell).

        A trace without frames (quinn's, which also leaves received sizes out) is judged by the mean size of the
        1-RTT packets it sent: data packets are near the MTU, ACK-only ones tens of bytes.
        """
        if self.stream_bytes_sent or self.stream_bytes_received:
            return self.stream_bytes_sent > self.stream_bytes_received
        sizes = self.sent.get("size", np.zeros(0))
        return bool(len(sizes)) and float(sizes.mean()) >= DATA_PACKET_MIN_MEAN


@dataclass
class _Header:
    vantage: str = ""
    protocol: str = ""
    schema: str = ""
    #: Seconds per unit of event time (ms unless ``configuration.time_units`` says ``us``).
    unit_s: float = 1e-3
    time_format: str = "relative"
    event_fields: list[str] | None = None


def iter_events(path: str | Path) -> Iterator[Event]:
    """Yield the events of a qlog file in file order; see `read_qlog` for the header.

    Raises
    ------
    QlogError
        The file is not qlog, or a record is malformed or truncated (the message names the file and line).
    """
    _, events = _open(Path(path))
    yield from events


def read_qlog(path: str | Path, rtt_unit_s: float | None = None) -> QlogTrace:
    """Read a qlog file into a `QlogTrace`.

    RTTs in ``metrics_updated`` are in the trace's time unit (ms; picoquic's µs) unless `rtt_unit_s` says
    otherwise. Without it, a trace whose first smoothed RTT is 0.333 (RFC 9002 §6.2.2's initial 333 ms written
    in seconds, as quinn-proto 0.11 does: ``paths.rs`` uses ``as_secs_f32``) is read in seconds, and its RTTs
    stay unset (NaN) until the first value that is not that initial RTT.

    Raises
    ------
    QlogError
        As `iter_events`; also when the file holds no event.
    """
    path = Path(path)
    fast = _read_rust(path, rtt_unit_s)
    return fast if fast is not None else _read_python(path, rtt_unit_s)


def read_qlog_traces(path: str | Path, rtt_unit_s: float | None = None) -> list[QlogTrace]:
    """Every trace of a qlog file, each read as `read_qlog` reads the first.

    A JSON document may hold several (one per connection or vantage point); `QlogTrace.index` gives each its
    place in the file. A JSON-SEQ file holds one.
    """
    path = Path(path)
    fast = _read_rust(path, rtt_unit_s)
    if fast is not None:
        return [fast]
    return [_build(path, header, events, rtt_unit_s, i) for i, (header, events) in enumerate(_open_all(path))]


def _read_python(path: Path, rtt_unit_s: float | None) -> QlogTrace:
    """`read_qlog` in Python only: the reference the Rust reader is tested against."""
    return _build(path, *_open(path), rtt_unit_s, 0)


def _read_rust(path: Path, rtt_unit_s: float | None) -> QlogTrace | None:
    """The trace as the Rust reader builds it, or None if it did not read the file.

    None for a file that is not JSON-SEQ, holds a record the Rust side leaves to Python, or is bad: Python then
    reads it and reports the error in its own words.
    """
    try:
        from cclab._core import QlogReadError, read_qlog_seq
    except ImportError:  # the extension is not built: Python reads everything
        return None
    try:
        d = read_qlog_seq(path, rtt_unit_s)
    except QlogReadError:
        return None
    if d is None:
        return None
    params: dict[str, Any] = {}
    for text in d["param_records"]:
        # Decoded here, not in Rust, so that every value (integers of any size) is what json.loads gives.
        data = json.loads(text).get("data")
        if isinstance(data, dict):
            params.update(data)
    return QlogTrace(
        path=path,
        vantage=d["vantage"],
        protocol=d["protocol"],
        schema=d["schema"],
        params=params,
        sent=d["sent"],
        received=d["received"],
        metrics=d["metrics"],
        lost=d["lost"],
        lost_triggers=d["lost_triggers"],
        acked_after_loss=d["acked_after_loss"],
        ack_frequency=d["ack_frequency"],
        acks=d["acks"],
        pto_expired_s=d["pto_expired_s"],
        nofeedback_expired_s=d["nofeedback_expired_s"],
        states=d["states"],
        event_counts=d["event_counts"],
    )


def _build(path: Path, header: _Header, events: Iterator[Event], rtt_unit_s: float | None, index: int) -> QlogTrace:
    b = _Builder(path, header, rtt_unit_s)
    for ev in events:
        b.add(ev)
    if not b.counts:
        raise QlogError(f"{path}: no qlog events" + (f" in trace {index}" if index else ""))
    trace = b.finish()
    trace.index = index
    return trace


def _open(path: Path) -> tuple[_Header, Iterator[Event]]:
    """The first trace of the file: its header and its events."""
    traces = _open_all(path)
    header, events = next(traces)

    def first() -> Iterator[Event]:
        # Holds `traces` until the events are read: a dropped generator would close the file under them.
        yield from events
        traces.close()

    return header, first()


def _open_all(path: Path) -> Iterator[tuple[_Header, Iterator[Event]]]:
    """Each trace of the file in turn (a JSON-SEQ file holds one); exhaust one's events before the next."""
    try:
        with path.open("rb") as raw:
            compressed = raw.read(2) == GZIP_MAGIC
        if compressed:
            f: IO[str] = gzip.open(path, "rt", encoding="utf-8", errors="strict", newline="")
        else:
            f = path.open(encoding="utf-8", errors="strict", newline="")
    except OSError as e:
        raise QlogError(f"{path}: {e.strerror or e}") from None
    if not compressed:
        yield from _open_text(path, f)
        return
    try:
        for header, events in _open_text(path, f):
            yield header, _gzip_guarded(path, events)
    except GZIP_ERRORS as e:
        f.close()
        raise QlogError(f"{path}: damaged or truncated gzip: {e}") from None


def _gzip_guarded(path: Path, events: Iterator[Event]) -> Iterator[Event]:
    """`events`, with a gzip error met while decompressing further raised as `QlogError`."""
    try:
        yield from events
    except GZIP_ERRORS as e:
        raise QlogError(f"{path}: damaged or truncated gzip: {e}") from None


def _open_text(path: Path, f: IO[str]) -> Iterator[tuple[_Header, Iterator[Event]]]:
    """The traces of an open text stream, as `_open_all` yields them."""
    try:
        first = f.read(1)
        while first and first in " \t\r\n":  # not str.isspace(): that counts RS as space
            first = f.read(1)
    except UnicodeDecodeError:
        f.close()
        raise QlogError(f"{path}:1: not UTF-8 text, not a qlog file") from None
    if first == RS:
        yield _open_seq(path, f)
        return
    if first == "{":
        yield from _open_document(path, f)
        return
    f.close()
    raise QlogError(f"{path}:1: not a qlog file (expected JSON-SEQ records or a JSON document)")


def _obj(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (a header field of the wrong type is ignored)."""
    return value if isinstance(value, dict) else {}


def _header_from(doc: dict[str, Any], trace: Any) -> _Header:
    trace = _obj(trace)
    vp, common, config = (_obj(trace.get(k)) for k in ("vantage_point", "common_fields", "configuration"))
    proto = common.get("protocol_type") or common.get("protocol_types") or ""
    version = str(doc.get("qlog_version") or doc.get("file_schema") or "")
    return _Header(
        vantage=str(vp.get("type") or vp.get("name") or ""),
        protocol=",".join(map(str, proto)) if isinstance(proto, list) else str(proto),
        schema=version,
        unit_s={"us": 1e-6, "ms": 1e-3, "s": 1.0}.get(str(config.get("time_units", "ms")), 1e-3),
        time_format=str(common.get("time_format", "relative")),
        event_fields=trace.get("event_fields") or common.get("event_fields"),
    )


def _open_seq(path: Path, f: IO[str]) -> tuple[_Header, Iterator[Event]]:
    records = _seq_records(path, f)
    try:
        line, head = next(records)
    except StopIteration:
        raise QlogError(f"{path}:1: empty JSON-SEQ file") from None
    if "trace" not in head and "traces" not in head:
        raise QlogError(f"{path}:{line}: the first record is not a qlog header (no 'trace')")
    traces = head.get("traces")
    trace = head.get("trace") or (traces[0] if isinstance(traces, list) and traces else {})
    header = _header_from(head, trace)
    return header, _events(path, header, records)


def _seq_records(path: Path, f: IO[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, object) per JSON-SEQ record; a record may span lines and ends at the next RS."""
    buf: list[str] = []
    start = 1
    lineno = 0
    with f:
        pending = RS
        try:
            for raw in f:
                lineno += 1
                text = pending + raw if pending else raw
                pending = ""
                if text.startswith(RS):
                    if buf:
                        yield start, _decode_record(path, start, "".join(buf), last=False)
                    buf, start = [text[1:]], lineno
                else:
                    buf.append(text)
        except UnicodeDecodeError:
            raise QlogError(f"{path}:{lineno + 1}: not UTF-8 text") from None
        if buf and "".join(buf).strip():
            yield start, _decode_record(path, start, "".join(buf), last=True)


def _decode_record(path: Path, line: int, text: str, last: bool) -> dict[str, Any]:
    """One record; a bad last record without its closing newline is a truncated file, any other a malformed one."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        what = "truncated record" if last and not text.endswith("\n") else "malformed record"
        raise QlogError(f"{path}:{line + e.lineno - 1}: {what}: {e.msg} (column {e.colno})") from None
    except RecursionError:
        raise QlogError(f"{path}:{line}: malformed record: nested too deeply") from None
    if not isinstance(obj, dict):
        raise QlogError(f"{path}:{line}: record is not a JSON object")
    return obj


def _open_document(path: Path, f: IO[str]) -> Iterator[tuple[_Header, Iterator[Event]]]:
    """Reads up to the first trace's ``"events": [``, parses that prefix as the header, streams the rest.

    Each later trace's header is read key by key from the stream once the previous events array has closed.
    """
    text, lines_before = "{", 0
    key = '"events"'
    while True:
        i = text.find(key)
        if i >= 0:
            j = text.find("[", i + len(key))
            if j >= 0:
                break
        try:
            chunk = f.read(CHUNK)
        except UnicodeDecodeError:
            f.close()
            raise QlogError(f"{path}: not UTF-8 text") from None
        if not chunk:
            f.close()
            raise QlogError(f"{path}:{text.count(chr(10)) + 1}: JSON document without an 'events' array")
        text += chunk
    prefix = text[:i].rstrip().rstrip(",")
    try:
        doc = json.loads(prefix + _closers(prefix))
    except json.JSONDecodeError as e:
        f.close()
        raise QlogError(f"{path}:{e.lineno}: malformed qlog header: {e.msg}") from None
    traces = doc.get("traces")
    header = _header_from(doc, traces[0] if isinstance(traces, list) and traces else {})
    lines_before = text[: j + 1].count("\n")
    with f:
        stream = _DocStream(path, f, text[j + 1 :], lines_before + 1)
        while header is not None:
            yield header, _events(path, header, stream.events())
            header = stream.next_trace(doc)


def _closers(prefix: str) -> str:
    """The brackets that close every object and array still open at the end of `prefix`."""
    stack: list[str] = []
    in_str = esc = False
    for c in prefix:
        if in_str:
            esc, in_str = (False, True) if esc else (c == "\\", c != '"')
        elif c == '"':
            in_str = True
        elif c in "{[":
            stack.append("}" if c == "{" else "]")
        elif c in "}]" and stack:
            stack.pop()
    return "".join(reversed(stack))


class _DocStream:
    """The rest of a JSON document, read a chunk at a time: buffered text, position in it, current line."""

    def __init__(self, path: Path, f: IO[str], buf: str, line: int) -> None:
        self.path, self.f, self.buf, self.line = path, f, buf, line
        self.pos = 0
        self.eof = False
        self.dec = json.JSONDecoder()

    def _refill(self) -> None:
        """Drops the consumed text and appends the next chunk."""
        try:
            chunk = self.f.read(CHUNK)
        except UnicodeDecodeError:
            raise QlogError(f"{self.path}:{self.line}: not UTF-8 text") from None
        self.buf, self.pos, self.eof = self.buf[self.pos :] + chunk, 0, not chunk

    def _skip(self, chars: str) -> str:
        """Skips `chars`, counting newlines; the next character, "" at the end of the file."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in chars:
                self.line += self.buf[self.pos] == "\n"
                self.pos += 1
            if not self.eof and len(self.buf) - self.pos < CHUNK // 4:
                self._refill()
                continue
            return self.buf[self.pos] if self.pos < len(self.buf) else ""

    def _value(self, what: str) -> Any:
        """Decodes the JSON value at the position; a failure near the end of the text may need the next chunk."""
        while True:
            try:
                obj, end = self.dec.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as e:
                near_end = e.pos + MARGIN >= len(self.buf)
                if near_end and not self.eof:
                    self._refill()
                    continue
                bad = self.line + self.buf.count("\n", self.pos, e.pos)
                kind = f"truncated {what}" if near_end else f"malformed {what}"
                raise QlogError(f"{self.path}:{bad}: {kind}: {e.msg}") from None
            self.line += self.buf.count("\n", self.pos, end)
            self.pos = end
            return obj

    def events(self) -> Iterator[tuple[int, Any]]:
        """(line, element) for each element of the events array, up to and past its closing bracket.

        An element that fails to decode well before the end of the buffered text is malformed; one that fails
        near the end may continue in the next chunk, and at the end of the file it is truncated.
        """
        while True:
            c = self._skip(" \t\r\n,")
            if not c:
                raise QlogError(f"{self.path}:{self.line}: truncated file: the events array is not closed")
            if c == "]":
                self.pos += 1
                return
            line = self.line
            yield line, self._value("event")

    def next_trace(self, doc: dict[str, Any]) -> _Header | None:
        """The next trace's header, read up to its own ``"events": [``, after skipping the rest of this one.

        None when the traces array ends (or the file does, after a complete trace).
        """
        depth = 1  # inside the trace object that holds the array just read
        trace: dict[str, Any] = {}
        fresh = False  # inside a trace object after the one just read
        while True:
            c = self._skip(" \t\r\n,")
            if not c:
                return None
            if depth == 0:
                if c != "{":  # "]" ends the traces array; anything else is not another trace
                    return None
                self.pos += 1
                depth, fresh = 1, True
                continue
            if c == "}":
                self.pos += 1
                depth, trace = 0, {}
                continue
            key = self._value("trace header")
            nxt = self._skip(" \t\r\n:")
            if not nxt or not isinstance(key, str):
                raise QlogError(f"{self.path}:{self.line}: malformed trace header")
            if key == "events" and fresh and nxt == "[":
                self.pos += 1
                return _header_from(doc, trace)
            trace[key] = self._value("trace header")


def _events(path: Path, header: _Header, records: Iterator[tuple[int, Any]]) -> Iterator[Event]:
    fields = header.event_fields
    t_first: float | None = None
    t_prev = 0.0
    for line, rec in records:
        if fields and isinstance(rec, list):
            rec = dict(zip(fields, rec, strict=False))
        if not isinstance(rec, dict):
            raise QlogError(f"{path}:{line}: event is not a JSON object or an event_fields array")
        name = rec.get("name")
        if name is None and "event" in rec:
            name = f"{rec.get('category', '')}:{rec['event']}"
        raw_t = rec.get("time", rec.get("relative_time"))
        if not isinstance(name, str) or not isinstance(raw_t, int | float) or isinstance(raw_t, bool):
            raise QlogError(f"{path}:{line}: event without a name and a numeric time")
        try:
            t = float(raw_t)
        except OverflowError:
            raise QlogError(f"{path}:{line}: event time out of range") from None
        if header.time_format == "delta":
            t_prev = t = t_prev + t
        elif header.time_format == "absolute":
            t_first = t if t_first is None else t_first
            t -= t_first
        short = name.rsplit(":", 1)[-1]
        data = rec.get("data")
        short = V03_ALIASES.get(name) or IETF_ALIASES.get(short, short)
        yield Event(t * header.unit_s, short, data if isinstance(data, dict) else {}, line)


def _application_space(data: dict[str, Any], hdr: dict[str, Any]) -> bool:
    """A 1-RTT (or untyped) packet: the number space that carries the data.

    Initial and Handshake packets have their own packet numbers (RFC 9000 §12.3); the tables leave them out.
    """
    kind = hdr.get("packet_type", data.get("packet_type", "1RTT"))
    return kind in ("1RTT", "1rtt", "0RTT")


def _columns(names: tuple[str, ...]) -> dict[str, array[float]]:
    return {k: array("d") for k in names}


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def _range_bounds(ranges: list[Any]) -> Iterator[tuple[float, float]]:
    """(low, high) of each well-formed ACK range (``[n]`` or ``[lo, hi]``); anything else is skipped."""
    for r in ranges:
        if not isinstance(r, list) or not r:
            continue
        lo, hi = _num(r[0]), _num(r[-1])
        if lo is not None and hi is not None:
            yield lo, hi


class _Builder:
    """Accumulates columns event by event; `finish` turns them into numpy arrays."""

    def __init__(self, path: Path, header: _Header, rtt_unit_s: float | None) -> None:
        self.path, self.header, self.rtt_unit_s = path, header, rtt_unit_s
        self.pto_count = 0.0
        #: RTT fields still hold the initial 333 ms a stack logs before its first sample.
        self.placeholder = False
        self.counts: dict[str, int] = {}
        self.handlers: dict[str, Any] = {}
        self.params: dict[str, Any] = {}
        pkt_cols = ("time_s", "pn", "size", "stream_bytes", "ack_eliciting", "ack_only")
        # Columns are arrays of doubles (8 bytes a value, a quarter of a list of floats): a trace of
        # hundreds of MB keeps tables of tens of MB.
        self.sent = _columns(pkt_cols)
        self.received = _columns(pkt_cols)
        self.metrics = _columns(("time_s", *METRIC_COLUMNS))
        self.current = dict.fromkeys(METRIC_COLUMNS, float("nan"))
        self.lost = _columns(("time_s", "pn"))
        self.triggers: list[str] = []
        #: Packet numbers declared lost and not yet acknowledged.
        self.lost_pns = PnRuns()
        self.spurious = _columns(("time_s", "pn"))
        self.ack_freq = _columns(("time_s", "threshold", "max_ack_delay_s"))
        self.acks = _columns(("time_s", "size", "newly_acked", "newly_acked_bytes", "largest_pn", "largest_sent_s"))
        #: Packet numbers sent and not yet covered by a received ACK (one enters only above the largest held:
        #: packet numbers only grow, RFC 9000 §12.3), and their (size, send time).
        self.unacked = PnRuns()
        self.unacked_info: dict[int, tuple[float, float]] = {}
        self.pto: list[float] = []
        self.nofeedback: list[float] = []
        self.states: list[tuple[float, str]] = []

    def add(self, ev: Event) -> None:
        self.counts[ev.name] = self.counts.get(ev.name, 0) + 1
        try:
            handler = self.handlers[ev.name]
        except KeyError:  # looked up once per event name, not once per event
            handler = self.handlers[ev.name] = getattr(self, f"_on_{ev.name}", None)
        if handler is not None:
            try:
                handler(ev)
            except (TypeError, ValueError, OverflowError) as e:
                # A field of a type the handler cannot use (a number for a list), or a number beyond a float.
                raise QlogError(f"{self.path}:{ev.line}: bad {ev.name} event: {e}") from None

    def _packet(self, ev: Event, table: dict[str, array[float]]) -> list[dict[str, Any]]:
        """Appends a 1-RTT packet to `table` and returns its frames; packets of other number spaces are skipped."""
        d = ev.data
        hdr = d.get("header") if isinstance(d.get("header"), dict) else {}
        if not _application_space(d, hdr):
            return []
        raw = d.get("raw") if isinstance(d.get("raw"), dict) else {}
        frames = [fr for fr in d.get("frames") or [] if isinstance(fr, dict)]
        pn = _num(hdr.get("packet_number"))
        # raw.length (qlog 0.3, IETF), header.packet_size (picoquic), header.length (quinn).
        size = _num(raw.get("length")) or _num(hdr.get("packet_size")) or _num(hdr.get("length")) or 0.0
        stream = 0.0
        eliciting = False
        for fr in frames:
            kind = fr.get("frame_type")
            if kind == "stream":
                fraw = fr.get("raw") if isinstance(fr.get("raw"), dict) else {}
                stream += _num(fr.get("length")) or _num(fraw.get("payload_length")) or 0.0
            eliciting |= kind not in NON_ELICITING
        table["time_s"].append(ev.time_s)
        table["pn"].append(pn if pn is not None else -1.0)
        table["size"].append(size)
        table["stream_bytes"].append(stream)
        table["ack_eliciting"].append(float(eliciting))
        kinds = {f.get("frame_type") for f in frames}
        table["ack_only"].append(float("ack" in kinds and kinds <= {"ack", "padding", "ping"}))
        return frames

    def _on_packet_sent(self, ev: Event) -> None:
        rows = len(self.sent["pn"])
        frames = self._packet(ev, self.sent)
        if len(self.sent["pn"]) > rows:
            pn = int(self.sent["pn"][-1])
            if pn >= 0 and (not self.unacked or pn > self.unacked.last()):
                self.unacked.add(pn)
                self.unacked_info[pn] = (self.sent["size"][-1], ev.time_s)
        for fr in frames:
            if fr.get("frame_type") == "unknown" and ACK_FREQUENCY_TYPE in (
                fr.get("raw_frame_type"),
                fr.get("frame_type_bytes"),
            ):
                self.ack_freq["time_s"].append(ev.time_s)
                self.ack_freq["threshold"].append(_num(fr.get("ack_eliciting_threshold")) or 0.0)
                self.ack_freq["max_ack_delay_s"].append((_num(fr.get("request_max_ack_delay")) or 0.0) * 1e-3)

    def _on_packet_received(self, ev: Event) -> None:
        for fr in self._packet(ev, self.received):
            if fr.get("frame_type") != "ack":
                continue
            ranges = fr.get("acked_ranges") or []
            if self.lost_pns:
                self._check_spurious(ev.time_s, ranges)
            self._newly_acked(ev.time_s, self.received["size"][-1], ranges)

    def _newly_acked(self, t: float, size: float, ranges: list[Any]) -> None:
        """One `acks` row: what this ACK frame covers that no earlier one did."""
        count, nbytes, largest, largest_sent = 0, 0.0, -1.0, float("nan")
        largest_new = -1
        for lo, hi in _range_bounds(ranges):
            largest = max(largest, hi)
            taken = self.unacked.pop_range(int(lo), int(hi))
            if not taken:
                continue
            top = taken[-1]
            if top >= largest_new:
                largest_new, largest_sent = top, self.unacked_info[top][1]
            for pn in taken:
                nbytes += self.unacked_info.pop(pn)[0]
            count += len(taken)
        a = self.acks
        a["time_s"].append(t)
        a["size"].append(size)
        a["newly_acked"].append(float(count))
        a["newly_acked_bytes"].append(nbytes)
        a["largest_pn"].append(largest)
        a["largest_sent_s"].append(largest_sent)

    def _check_spurious(self, t: float, ranges: list[Any]) -> None:
        for lo, hi in _range_bounds(ranges):
            for pn in self.lost_pns.pop_range(int(lo), int(hi)):
                self.spurious["time_s"].append(t)
                self.spurious["pn"].append(float(pn))

    def _on_packet_lost(self, ev: Event) -> None:
        hdr = ev.data.get("header") if isinstance(ev.data.get("header"), dict) else {}
        if not _application_space(ev.data, hdr):
            return
        pn = _num(hdr.get("packet_number"))
        trigger = str(ev.data.get("trigger", ""))
        self.lost["time_s"].append(ev.time_s)
        self.lost["pn"].append(pn if pn is not None else -1.0)
        self.triggers.append(trigger)
        if pn is not None:
            self.lost_pns.add(int(pn))
        if trigger == "pto_expired":
            self.pto.append(ev.time_s)

    def _on_loss_timer_updated(self, ev: Event) -> None:
        kind = ev.data.get("event_type") or ev.data.get("type")
        if kind == "expired" and ev.data.get("timer_type") == "pto":
            self.pto.append(ev.time_s)
        elif kind == "expired" and ev.data.get("timer_type") == "nofeedback":
            self.nofeedback.append(ev.time_s)

    def _on_metrics_updated(self, ev: Event) -> None:
        changed = False
        first = _num(ev.data.get("smoothed_rtt"))
        if self.rtt_unit_s is None and first is not None:
            self.placeholder = abs(first - INITIAL_RTT_S) < 1e-6
            self.rtt_unit_s = 1.0 if self.placeholder else self.header.unit_s
        for key, col in RTT_FIELDS.items():
            v = _num(ev.data.get(key))
            if v is not None:
                v *= self.rtt_unit_s or self.header.unit_s
                # The initial RTT logged before any sample is not a measurement (RFC 9002 §5.3).
                self.placeholder &= abs(v - INITIAL_RTT_S) < 1e-6
                self.current[col] = float("nan") if self.placeholder else v
                changed = True
        # quinn logs no PTO event, but counts PTOs in its metrics: each increase is an expiry.
        pto = _num(ev.data.get("pto_count"))
        if pto is not None:
            if pto > self.pto_count:
                self.pto.append(ev.time_s)
            self.pto_count = pto
        for key, col in SIZE_FIELDS.items():
            v = _num(ev.data.get(key))
            if v is not None:
                self.current[col] = v
                changed = True
        if changed:
            self.metrics["time_s"].append(ev.time_s)
            for col in METRIC_COLUMNS:
                self.metrics[col].append(self.current[col])

    def _on_congestion_state_updated(self, ev: Event) -> None:
        self.states.append((ev.time_s, str(ev.data.get("new", ""))))

    def _on_parameters_set(self, ev: Event) -> None:
        self.params.update(ev.data)

    def _on_recovery_parameters_set(self, ev: Event) -> None:
        self.params.update(ev.data)

    def finish(self) -> QlogTrace:
        def arrays(cols: dict[str, array[float]]) -> dict[str, npt.NDArray[np.float64]]:
            return {k: np.asarray(v, dtype=np.float64) for k, v in cols.items()}

        h = self.header
        return QlogTrace(
            path=self.path,
            vantage=h.vantage,
            protocol=h.protocol,
            schema=h.schema,
            params=self.params,
            sent=arrays(self.sent),
            received=arrays(self.received),
            metrics=arrays(self.metrics),
            lost=arrays(self.lost),
            lost_triggers=self.triggers,
            acked_after_loss=arrays(self.spurious),
            ack_frequency=arrays(self.ack_freq),
            acks=arrays(self.acks),
            pto_expired_s=np.asarray(sorted(self.pto), dtype=np.float64),
            nofeedback_expired_s=np.asarray(self.nofeedback, dtype=np.float64),
            states=self.states,
            event_counts=self.counts,
        )
