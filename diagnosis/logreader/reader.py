"""One pass over a log piece → LogFacts.

The pass records what happened in order — phase markers, progress bars, OOM events, tracebacks,
other errors — and the verdicts (which event was fatal, in which phase, at which step) are drawn at the
end from that record, anchored at the fatal error.
"""

from __future__ import annotations

import re

from diagnosis.limits import Limits
from diagnosis.logreader import errors, exits, oom
from diagnosis.logreader.echo import echoed_config
from diagnosis.logreader.env import Environment
from diagnosis.logreader.gpus import vram_of_gpu_names
from diagnosis.logreader.lines import ERROR_RUNNING_JOB, is_plain, log_text, segments_of
from diagnosis.logreader.phase import Frame, Mark, marker_of, parse_frame, phase_of_frames
from diagnosis.logreader.progress import Bar, bar_counts, bar_description, classify_bar
from diagnosis.logreader.speeds import BarTimes
from diagnosis.models import LogFacts, LogLine, NonOomError, OomEvent, OomKind, Phase, Piece
from diagnosis.record import fields

# Evidence lines are quoted back to the user; a few hundred characters identify any line.
_QUOTE_CHARS = 1000
# A non-OOM error's kind is read from its headline and the lines right after it.
_ERROR_BLOCK_LINES = 6
# A console that hard-wraps long lines splits an allocator message (some 600 characters) over a dozen
# lines at most, at 60 columns.
_CONTINUATION_LINES = 12
# With nothing but an allocator message to go on, this little memory in PyTorch's hands means the
# model had not arrived on the card yet.
_LOAD_ALLOCATED_BYTES = 1024**3
_DEVICE = re.compile(r"\s{0,8}cuda:(\d{1,3})\s{0,8}")
# "2025-11-18T10:00:00.123456789Z ", "[2025-11-18 10:00:00] ", "2025-11-18 10:00:00,123 | ".
_TIMESTAMP = re.compile(
    r"\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?\]?(?: ?[|-])? "
)
_TIMESTAMP_FIRST = frozenset("[0123456789")
_RUNNING_JOB = "# Running job: "
_LAST_LOG_LINE = "Last log line: "

_MARK_PHASES: dict[Mark, Phase] = {
    Mark.MODEL_LOAD: Phase.MODEL_LOAD,
    Mark.QUANTIZE: Phase.QUANTIZE,
    Mark.LATENT_CACHING: Phase.LATENT_CACHING,
    Mark.TEXT_EMBEDDING_CACHING: Phase.TEXT_EMBEDDING_CACHING,
    Mark.DATALOADER: Phase.DATALOADER,
    Mark.FIRST_SAMPLE: Phase.FIRST_SAMPLE,
    Mark.TRAINING: Phase.TRAINING_STEP,
    Mark.SAVE: Phase.SAVE,
}
# A run of redraws of one bar: the first line's prefix (its description and colon), then every line
# that starts with that same prefix and whose first `%` is the bar's `%|`. One pattern serves every
# bar: the backreference carries the description, so no pattern is compiled per description. Each line
# is read once (the classes exclude what ends them), so a match is linear in the window it is given.
# The lookahead first: without it a line of colons and no `%|` was reread from each colon the
# description could end at.
_REDRAW_RUN = re.compile(r"(?=[^\n%]*+%\|.*\n)([^\n%]*:)[^\n%]*+%\|.*\n(?:\1[^\n%]*+%\|.*\n)*+")
# The bar kinds of `LogFacts.bar_times`, by what the bar (or, for a bar with no description, the
# phase line before it) announces.
_BAR_KEYS: dict[Mark | None, str] = {
    Mark.TRAINING: "training",
    Mark.SAMPLE: "sample",
    Mark.FIRST_SAMPLE: "sample",
    Mark.QUANTIZE: "quantize",
    Mark.LATENT_CACHING: "latent_caching",
    Mark.TEXT_EMBEDDING_CACHING: "text_embedding_caching",
    Mark.MODEL_LOAD: "model_load",
    Mark.DATALOADER: "dataloader",
}
# Lines that say a job started, before any phase line (run.py, the UI's worker).
_STARTS = ("Running 1 job", "Running  1 process", "Running 1 process", "Starting job")
_NUMBERS = ("tried_bytes", "total_bytes", "free_bytes", "process_bytes", "allocated_bytes", "device_index")


# The reader's own frames are plain classes with __slots__, not dataclasses (see diagnosis/record.py).
class _Marker:
    __slots__ = ("after_training", "line", "mark", "seq", "text")

    def __init__(self, seq: int, mark: Mark, line: int, text: str, after_training: bool) -> None:
        self.seq = seq
        self.mark = mark
        self.line = line
        self.text = text
        self.after_training = after_training  # a training bar had been drawn before this marker

    @property
    def where(self) -> LogLine:
        return _quote(self.line, self.text)


class _Traceback:
    __slots__ = ("end_seq", "final", "frames", "start_seq")

    def __init__(self, start_seq: int, end_seq: int, frames: list[Frame] | None = None) -> None:
        self.start_seq = start_seq
        self.end_seq = end_seq
        self.frames: list[Frame] = [] if frames is None else frames
        self.final: str | None = None  # the exception line; None when the traceback was cut before it


class _PendingError:
    __slots__ = ("block", "headline", "seq", "where")

    def __init__(self, seq: int, headline: str, where: LogLine, block: list[str]) -> None:
        self.seq = seq
        self.headline = headline
        self.where = where
        self.block = block


def _quote(line: int, text: str) -> LogLine:
    return LogLine(line, text.strip()[:_QUOTE_CHARS])


def _same_event(old: OomEvent, new: OomEvent) -> bool:
    """The same failure printed again (`Error running job:` and the traceback's last line)."""
    if old.kind is not new.kind or old.caught:
        return False
    for name in _NUMBERS:
        a, b = getattr(old, name), getattr(new, name)
        if a is not None and b is not None and a != b:
            return False
    return True


def _merge(old: OomEvent, new: OomEvent) -> None:
    """Fill what one printing of a message lacks (a cut line) from the other."""
    for f in fields(OomEvent):
        if f.name in {"kind", "where", "caught"}:
            continue
        if getattr(old, f.name) in (None, []) and getattr(new, f.name) not in (None, []):
            setattr(old, f.name, getattr(new, f.name))


class _Reader:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.markers: list[_Marker] = []
        self.run_open = False  # the last marker may absorb the next one of the same kind
        self.training_seen = False
        self.model_line: LogLine | None = None
        self.last_bar: Bar | None = None  # bars redraw with the same description: classify once
        self.job_name: str | None = None
        self.events: list[OomEvent] = []
        self.event_seqs: list[int] = []
        self.dropped = 0
        self.quiet_since_event = False  # nothing but traceback and banner lines since the last event
        # The event whose message may go on over the next lines, with its text so far and lines left.
        self.pending: tuple[OomEvent, str, int] | None = None
        self.tracebacks: list[_Traceback] = []
        self.open_tb: _Traceback | None = None
        self.pending_error: _PendingError | None = None
        self.error: NonOomError | None = None
        self.error_seq = -1
        self.env = Environment()
        self.cut_lines = False
        self.seq = 0
        # Where the physical line being fed sits in the text: bar readings are sampled by offset.
        self.line_start = 0
        self.line_end = 0
        self.bar_times: dict[str, BarTimes] = {}
        self.bar_key = "other"  # the kind of the last bar fed, for the redraws skipped after it
        self.started: tuple[int, LogLine] | None = None  # (seq, line) of the latest job-start line
        self.exit: tuple[int, exits.Exit, LogLine] | None = None  # the latest exit line

    # ---------------------------------------------------------------------------------------------
    # Recording

    def add_marker(self, mark: Mark, line: int, text: str) -> None:
        self.quiet_since_event = False
        if mark is Mark.MODEL_LOAD and self.model_line is None:
            stripped = text.strip()
            # "Loading Flux model", "Loading Qwen Image model": the trainer names the model it loads.
            if stripped.endswith(" model") and stripped.startswith("Loading ") and len(stripped) < 80:
                self.model_line = _quote(line, text)
        last = self.markers[-1] if self.markers else None
        if self.run_open and last is not None and last.mark is mark:
            last.seq, last.line, last.text = self.seq, line, text
            return
        self.markers.append(_Marker(self.seq, mark, line, text, self.training_seen))
        self.run_open = True

    def add_event(self, event: OomEvent) -> None:
        if self.events and self.quiet_since_event and _same_event(self.events[-1], event):
            _merge(self.events[-1], event)
            return
        if len(self.events) >= self.limits.max_events:
            # Keep the first ones and always the latest: the latest is the one that ends the run.
            self.dropped += 1
            self.events[-1] = event
            self.event_seqs[-1] = self.seq
        else:
            self.events.append(event)
            self.event_seqs.append(self.seq)
        self.quiet_since_event = True
        self.run_open = False

    def caught_banner(self, line: int, text: str) -> None:
        last = self.events[-1] if self.events else None
        if last is not None and self.quiet_since_event and not last.caught:
            last.caught = True  # the message printed just before the banner is the OOM it caught
        else:
            self.add_event(OomEvent(OomKind.CUDA_ALLOC, _quote(line, text), caught=True))
        self.add_marker(Mark.TRAINING, line, text)

    def finish_error(self) -> None:
        pending = self.pending_error
        if pending is None:
            return
        self.pending_error = None
        block = "\n".join(pending.block)
        coarse = errors.classify(block)
        tb = self.tracebacks[-1] if self.tracebacks else None
        files = [f.file for f in tb.frames] if tb is not None and tb.end_seq == pending.seq else []
        self.error = NonOomError(coarse, pending.headline, pending.where, errors.detail(block, files, coarse))
        self.error_seq = pending.seq
        self.run_open = False

    def close_traceback(self, final: str | None) -> None:
        tb = self.open_tb
        if tb is None:
            return
        tb.final = final
        tb.end_seq = self.seq
        self.tracebacks.append(tb)
        self.open_tb = None

    # ---------------------------------------------------------------------------------------------
    # The pass

    def feed(self, line: int, text: str) -> None:
        if text[:1] in _TIMESTAMP_FIRST:
            stamp = _TIMESTAMP.match(text)
            if stamp is not None:
                text = text[stamp.end() :]  # `docker logs -t` and similar prefix every line
        if "%|" in text and self.open_tb is None and self.pending is None:
            # Progress bars are most of a long log: take them first, without the other checks.
            if self.pending_error is not None:
                self.finish_error()
            self.feed_bar(line, text)
            return
        self.env.feed(text)
        stripped = text.strip()
        if self.pending is not None:
            if stripped and self.continue_event(text):
                return
            self.pending = None
        if self.pending_error is not None:
            if (
                stripped
                and not stripped.startswith(("=====", "Traceback"))
                and len(self.pending_error.block) < _ERROR_BLOCK_LINES
            ):
                self.pending_error.block.append(stripped)
            else:
                self.finish_error()
        if not stripped:
            return
        if self.feed_traceback(line, text, stripped):
            return
        if "%|" in text:
            self.feed_bar(line, text)
            return
        mark = marker_of(text)
        if mark is not None:
            self.add_marker(mark, line, text)
            return
        if stripped.startswith(_RUNNING_JOB):
            self.job_name = stripped[len(_RUNNING_JOB) :].strip() or self.job_name
            self.started = (self.seq, _quote(line, text))
            return
        if stripped.startswith(_STARTS):
            self.started = (self.seq, _quote(line, text))
        if oom.CAUGHT_BANNER in text:
            self.caught_banner(line, text)
            return
        self.feed_failure(line, text, stripped)

    def continue_event(self, text: str) -> bool:
        """Take `text` as more of the pending event's message; False when it is not."""
        if self.pending is None:
            return False
        event, so_far, left = self.pending
        if event.kind is OomKind.CUDA_ASYNC_ALLOC:
            return oom.continue_async(event, text)
        joined = oom.continue_wrapped(event, so_far, text) if left > 0 else None
        if joined is None:
            return False
        self.pending = (event, joined, left - 1)
        return True

    def feed_traceback(self, line: int, text: str, stripped: str) -> bool:
        """Handle traceback lines; True when the line was one."""
        if stripped.startswith("Traceback (most recent call last)"):
            if self.open_tb is not None and not self.open_tb.frames:
                return True  # two interleaved streams printed the header twice
            self.close_traceback(None)
            self.open_tb = _Traceback(self.seq, self.seq)
            rest = stripped[len("Traceback (most recent call last)") :].lstrip(": ")
            if not rest:
                return True
            # A traceback a forum joined onto one line: the error at its end is read from the line.
            self.close_traceback(rest)
            return False
        tb = self.open_tb
        if tb is None:
            frame = parse_frame(text, line) if stripped.startswith('File "') else None
            if frame is None:
                return False
            # Frames without their header: the paste starts in the middle of a traceback.
            tb = self.open_tb = _Traceback(self.seq, self.seq, [frame])
            return True
        if text[0] in " \t" or stripped == "...":
            frame = parse_frame(text, line)
            if frame is not None:
                tb.frames.append(frame)
            elif tb.frames and not tb.frames[-1].code:
                last = tb.frames[-1]
                tb.frames[-1] = Frame(last.file, last.func, last.line, stripped[:200])
            return True
        self.close_traceback(stripped if errors.ends_traceback(text) or oom.parse_oom(text) else None)
        return False

    def feed_bar(self, line: int, text: str) -> None:
        bar = self.last_bar
        if bar is None or not bar.description or not text.startswith(bar.description + ":"):
            description = bar_description(text)
            if description is None:
                return
            if bar is None or bar.description != description:
                bar = self.last_bar = classify_bar(description, text, self.job_name)
        if bar.kind is Mark.TRAINING:
            self.training_seen = True
            if self.job_name is None and bar.description:
                self.job_name = bar.description
        self.bar_key = self.key_of(bar)
        times = self.bar_times.get(self.bar_key)
        if times is None:
            times = self.bar_times[self.bar_key] = BarTimes()
        times.see(line, text, self.line_start, self.line_end)
        if bar.kind is not None:
            self.add_marker(bar.kind, line, text)

    def key_of(self, bar: Bar) -> str:
        """The kind of bar its readings are filed under."""
        if bar.kind is not None or bar.description:
            return _BAR_KEYS.get(bar.kind, "other")
        # A bar with no description counts what the phase line before it announced (the blocks of
        # ` - quantizing 57 transformer blocks`, the steps of a sample) — but never training steps.
        last = self.markers[-1].mark if self.markers else None
        return _BAR_KEYS.get(last, "other") if last is not Mark.TRAINING else "other"

    def skipped_bar_lines(self, text: str, start: int, end: int, first_line: int, lines: int) -> None:
        """Redraws of the last bar that the fast path skipped: `text[start:end]`, `lines` whole lines."""
        times = self.bar_times.get(self.bar_key)
        if times is not None:
            times.see_run(text, start, end, first_line, lines)

    def feed_failure(self, line: int, text: str, stripped: str) -> None:
        ended = exits.exit_of(text)
        if ended is not None:
            self.exit = (self.seq, ended, _quote(line, text))
        parsed = oom.parse_oom(text)
        if parsed is not None:
            last_line = text.partition(_LAST_LOG_LINE)[2]
            mark = marker_of(last_line) if last_line else None
            if mark is not None:
                self.add_marker(mark, line, last_line)  # the UI quotes where the job was
            event = OomEvent(
                kind=parsed.kind,
                where=_quote(line, text),
                tried_bytes=parsed.tried_bytes,
                total_bytes=parsed.total_bytes,
                free_bytes=parsed.free_bytes,
                process_bytes=parsed.process_bytes,
                allocated_bytes=parsed.allocated_bytes,
                reserved_unallocated_bytes=parsed.reserved_unallocated_bytes,
                non_pytorch_bytes=parsed.non_pytorch_bytes,
                device_index=parsed.device_index,
                other_processes=parsed.other_processes,
            )
            self.add_event(event)
            self.pending = (self.events[-1], text.rstrip(), _CONTINUATION_LINES)
            return
        if (
            "rror" not in text
            and "xception" not in text
            and "Fail" not in text
            and "terminate called" not in text
        ):
            return
        headline: str | None = None
        if stripped.startswith(ERROR_RUNNING_JOB):
            headline = stripped[len(ERROR_RUNNING_JOB) :].strip() or None
        elif errors.exception_headline(text) is not None or oom.message_head(text).startswith(
            ("CUDA error: ", "HIP error: ", "terminate called after throwing")
        ):
            headline = stripped
        if headline is not None:
            self.finish_error()
            self.pending_error = _PendingError(
                self.seq, headline[:_QUOTE_CHARS], _quote(line, text), [headline]
            )

    def redraw_prefix(self) -> tuple[str, _Marker | None] | None:
        """(prefix, marker) when the next line starting with `prefix` can only be a redraw of the last bar.

        Such a line changes nothing but the position and text of the bar's marker (None: the bar
        marks nothing), so a long run of redraws need not go through `feed`.
        """
        bar = self.last_bar
        if (
            bar is None
            or not bar.description
            or bar.description[0] in _TIMESTAMP_FIRST  # a timestamp match could eat into it
            or self.open_tb is not None
            or self.pending is not None
            or self.pending_error is not None
        ):
            return None
        if bar.kind is Mark.TRAINING and (not self.training_seen or self.job_name is None):
            return None
        if bar.kind is None:
            return bar.description + ":", None
        last = self.markers[-1] if self.markers else None
        if not self.run_open or last is None or last.mark is not bar.kind or self.quiet_since_event:
            return None
        return bar.description + ":", last

    def skip_redraws(self, text: str, pos: int, prefix: str) -> int:
        """The end of the plain redraw lines of the bar described by `prefix` that start at `pos` (a line
        start after a line break).

        At most `max_line_chars` characters are taken at a time, so every line taken is within the
        limit; a line with `\\r`, an ANSI code or a glued `Error running job:` ends the run.
        """
        window = min(len(text), pos + self.limits.max_line_chars)
        run = _REDRAW_RUN.match(text, pos, window)
        # The pattern reads the prefix from the first line: a bar whose description holds ": " before
        # the colon that ends it is not read back the same way, and is fed line by line instead.
        end = run.end() if run is not None and run.group(1) == prefix else pos
        for bad in ("\r", "\x1b", ERROR_RUNNING_JOB):
            at = text.find(bad, pos, end) if end > pos else -1
            if at >= 0:
                end = text.rfind("\n", pos, at) + 1
        return max(pos, end)

    def run(self, text: str) -> None:
        limit = self.limits.max_line_chars
        text = log_text(text)
        size = len(text)
        pos = 0
        number = 0
        redraw: tuple[str, _Marker | None] | None = None
        while pos <= size:
            number += 1
            if redraw is not None:
                end = self.skip_redraws(text, pos, redraw[0])
                if end > pos:
                    # Redraws of the bar just fed: only the last one moves its marker.
                    count = text.count("\n", pos, end)
                    self.skipped_bar_lines(text, pos, end, number, count)
                    number += count - 1
                    self.seq += count
                    marker = redraw[1]
                    if marker is not None:
                        last = max(pos, text.rfind("\n", pos, end - 1) + 1)
                        marker.seq, marker.line, marker.text = self.seq - 1, number, text[last : end - 1]
                    pos = end
                    continue
            end = text.find("\n", pos)
            end = size if end < 0 else end
            raw = text[pos:end]
            self.line_start, self.line_end = pos, end
            pos = end + 1
            if is_plain(raw, limit):
                self.feed(number, raw)
                self.seq += 1
                redraw = self.redraw_prefix() if self.last_bar is not None and "%|" in raw else None
                continue
            redraw = None
            for segment in segments_of(number, raw, limit):
                self.cut_lines = self.cut_lines or segment.cut
                self.feed(segment.line, segment.text)
                self.seq += 1
        self.finish_error()
        self.close_traceback(None)

    # ---------------------------------------------------------------------------------------------
    # Verdicts

    def fatal(self) -> tuple[OomEvent, int] | None:
        for event, seq in zip(reversed(self.events), reversed(self.event_seqs), strict=True):
            if not event.caught:
                return event, seq
        return None

    def traceback_for(self, anchor: int | None) -> _Traceback | None:
        if not self.tracebacks:
            return None
        if anchor is None:
            return self.tracebacks[-1]
        for tb in self.tracebacks:
            if tb.end_seq >= anchor:
                return tb
        return None

    def shm_from_frames(self) -> None:
        """A traceback cut inside torch's shared-memory pickling is the /dev/shm failure, message lost."""
        tb = self.tracebacks[-1] if self.tracebacks else None
        if tb is None or tb.final is not None or self.events:
            return
        for frame in reversed(tb.frames):
            if frame.func in {"_share_filename_cpu_", "reduce_storage"}:
                self.events.append(
                    OomEvent(OomKind.SHM, LogLine(frame.line, f'File "{frame.file}", in {frame.func}'))
                )
                self.event_seqs.append(tb.end_seq)
                return


# The markers that announce each phase; the others announce the phase of their own name.
_MARKS_OF_PHASE: dict[Phase, frozenset[Mark]] = {
    Phase.FIRST_SAMPLE: frozenset({Mark.FIRST_SAMPLE}),
    Phase.SAMPLING: frozenset({Mark.SAMPLE}),
    Phase.TRAINING_STEP: frozenset({Mark.TRAINING}),
}
_ANNOUNCEMENT_LINES_BACK = 400


def _announcement(before: list[_Marker], phase: Phase, error_line: int | None) -> LogLine | None:
    """The trainer's own announcement of the phase ("Generating baseline samples before training"),
    quoted in place of a line of traceback code: the last announcing line before the error (a progress
    bar is no announcement), when it announces this phase and is near enough to it (an earlier one
    belongs to another phase)."""
    last = next((m for m in reversed(before) if "%|" not in m.text), None)
    if last is None or (error_line is not None and last.line < error_line - _ANNOUNCEMENT_LINES_BACK):
        return None
    marks = _MARKS_OF_PHASE.get(phase, frozenset({Mark(phase.value)} if phase.value in set(Mark) else ()))
    return LogLine(last.line, last.text.strip()) if last.mark in marks else None


# How far from an error a GPU name is looked for ("tested on the 4090 … then on the A6000: SIGKILL").
GPU_LINES_BEFORE = 300
GPU_LINES_AFTER = 30


def _lines_from(text: str, first: int) -> list[str]:
    """Lines `first` (0-based) to the end, split at line feeds as the reader numbers them. The error is
    near the end of a long log, so only that tail is split, not the whole text."""
    if first <= 0:
        return text.split("\n")
    tail = text.count("\n") + 1 - first
    return text.rsplit("\n", tail)[1:] if tail > 0 else []


def gpu_near(text: str, error_line: int) -> tuple[str, float] | None:
    """The GPU named closest before the error line (else just after it), when the lines around it name
    several cards; None when that does not decide anything."""
    first = max(0, error_line - 1 - GPU_LINES_BEFORE)
    lines = _lines_from(text, first)
    end = first + len(lines)
    error = min(max(error_line - 1, 0), end)
    last = min(end, error + GPU_LINES_AFTER)
    names = vram_of_gpu_names([line[:400] for line in lines[: max(0, last - first)]])
    named = [(first + offset, found) for offset, found in enumerate(names) if found is not None]
    if len({name for _, (name, _) in named}) < 2:
        return None
    before = [item for item in named if item[0] <= error]
    return before[-1][1] if before else named[0][1]


def _gpus_near_the_errors(text: str, facts: LogFacts) -> dict[int, tuple[str, float]]:
    """`gpu_near` for the events that can end up as the case's error: the fatal one, the last one, the
    first of the host; by the event's line."""
    events = [facts.fatal, facts.events[-1] if facts.events else None]
    events.append(next((e for e in facts.events if e.kind.on_host), None))
    out: dict[int, tuple[str, float]] = {}
    for event in events:
        if event is not None and event.where.line not in out:
            found = gpu_near(text, event.where.line)
            if found is not None:
                out[event.where.line] = found
    return out


def _phase(reader: _Reader, facts: LogFacts, anchor: int | None) -> None:
    before = [m for m in reader.markers if anchor is None or m.seq <= anchor]
    training_before = any(m.mark is Mark.TRAINING for m in before)
    last = before[-1] if before else None
    marker_phase: Phase | None = None
    if last is not None:
        if last.mark is Mark.SAMPLE:
            marker_phase = Phase.SAMPLING if last.after_training else Phase.FIRST_SAMPLE
        else:
            marker_phase = _MARK_PHASES[last.mark]
    tb = reader.traceback_for(anchor)
    from_frames = phase_of_frames(tb.frames) if tb is not None else None
    if from_frames is not None and tb is not None:
        phase, part, frame = from_frames
        if phase is Phase.SAMPLING and not training_before:
            phase = Phase.FIRST_SAMPLE
        if (
            phase is Phase.MODEL_LOAD
            and marker_phase is Phase.QUANTIZE
            and tb.final is None
            and last is not None
        ):
            facts.phase, facts.phase_evidence = Phase.QUANTIZE, last.where
            return
        facts.phase = phase
        facts.step_part = part
        error_line = facts.fatal.where.line if facts.fatal is not None else frame.line
        facts.phase_evidence = _announcement(before, phase, error_line) or LogLine(
            frame.line, frame.code or f'File "{frame.file}", in {frame.func}'
        )
        return
    if marker_phase is not None and last is not None:
        facts.phase, facts.phase_evidence = marker_phase, last.where
        return
    fatal = facts.fatal
    if (
        fatal is not None
        and fatal.kind in {OomKind.CUDA_ALLOC, OomKind.HIP, OomKind.XPU}
        and fatal.allocated_bytes is not None
        and fatal.allocated_bytes < _LOAD_ALLOCATED_BYTES
    ):
        facts.phase, facts.phase_evidence = Phase.MODEL_LOAD, fatal.where


def _step(reader: _Reader, facts: LogFacts, anchor: int | None) -> None:
    for marker in reversed(reader.markers):
        if anchor is not None and marker.seq > anchor:
            continue
        if marker.mark is Mark.TRAINING:
            counts = bar_counts(marker.text)
            if counts is not None:
                facts.step, facts.total_steps = counts
                return


def _symptoms(reader: _Reader, facts: LogFacts) -> None:
    """What the log shows besides an OOM: speeds, where it stops, how the process ended."""
    for key, times in reader.bar_times.items():
        times.finish()
        summary = times.summary()
        if summary is not None:
            facts.bar_times[key] = summary
    training = reader.bar_times.get("training")
    facts.nan_loss = training.nan_loss if training is not None else None
    last = reader.markers[-1] if reader.markers else None
    last_seq = -1
    if last is not None:
        last_seq = last.seq
        if last.mark is Mark.SAMPLE:
            facts.last_phase = Phase.SAMPLING if last.after_training else Phase.FIRST_SAMPLE
        else:
            facts.last_phase = _MARK_PHASES[last.mark]
        facts.last_phase_evidence = last.where
    if reader.started is not None and reader.started[0] > last_seq:
        # The job had started and printed no phase line since: its config was read, nothing loaded.
        last_seq = reader.started[0]
        facts.last_phase, facts.last_phase_evidence = Phase.CONFIG_PARSE, reader.started[1]
    failures = [seq for event, seq in zip(reader.events, reader.event_seqs, strict=True) if not event.caught]
    if reader.error is not None:
        failures.append(reader.error_seq)
    failures += [tb.end_seq for tb in reader.tracebacks]
    if reader.exit is not None:
        seq, ended, where = reader.exit
        facts.exit_code, facts.exit_signal, facts.exit_evidence = ended.code, ended.signal, where
        failures.append(seq)
        facts.silent_exit = (
            seq > last_seq  # an exit the log goes on after is not how the run ended
            and not reader.tracebacks
            and reader.error is None
            and all(event.kind is OomKind.HOST_KILLED for event in reader.events)
        )
    facts.ends_without_error = all(seq < last_seq for seq in failures)


def read(piece: Piece, limits: Limits) -> LogFacts:
    text = piece.text
    reader = _Reader(limits)
    reader.run(text)
    reader.shm_from_frames()
    facts = LogFacts(piece=piece, events=reader.events, events_dropped=reader.dropped)
    if reader.dropped:
        facts.limits_hit.append("max_events")
    if reader.cut_lines:
        facts.limits_hit.append("max_line_chars")
    found = reader.fatal()
    anchor: int | None = None
    if found is not None:
        facts.fatal, anchor = found
    elif reader.error is not None:
        anchor = reader.error_seq
    elif reader.event_seqs:
        anchor = reader.event_seqs[-1]
    facts.non_oom_error = reader.error
    facts.has_traceback = bool(reader.tracebacks)
    facts.cut_before_error = bool(reader.tracebacks) and reader.tracebacks[-1].final is None
    _phase(reader, facts, anchor)
    if facts.phase is Phase.UNKNOWN and any(e.caught for e in reader.events):
        facts.phase = Phase.TRAINING_STEP
        facts.phase_evidence = next(e.where for e in reader.events if e.caught)
    if facts.phase is not Phase.TRAINING_STEP:
        facts.step_part = None
    _step(reader, facts, anchor)
    facts.job_name = reader.job_name
    echo = echoed_config(text, piece, limits)
    if echo is not None:
        facts.echoed_config, data = echo
        device = data.get("device")
        match = _DEVICE.fullmatch(device) if isinstance(device, str) else None
        if match is not None:
            facts.device_index = int(match.group(1))
    if facts.device_index is None:
        source = facts.fatal or (reader.events[-1] if reader.events else None)
        facts.device_index = source.device_index if source is not None else None
    gpu = reader.env.gpu(facts.device_index)
    if gpu is not None:
        facts.gpu_name = gpu.name
        facts.gpu_total_bytes = gpu.total_bytes or round(gpu.gb * 1024**3)
    facts.os = reader.env.os()
    facts.model_line = reader.model_line
    if facts.device_index is None:
        facts.gpu_near = _gpus_near_the_errors(text, facts)
    facts.torch_version = reader.env.torch_version
    facts.trainer_version = reader.env.trainer_version
    _symptoms(reader, facts)
    return facts
