"""Reading console logs: OOM events, phase, step, GPU, echoed config, non-OOM errors.

`read_log(piece)` turns one log piece into `LogFacts`; it never raises.
"""
