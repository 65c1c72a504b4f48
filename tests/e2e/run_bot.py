"""Run the real `oomcheck bot` entry point against the fake Discord at argv[1] (http://127.0.0.1:PORT).

Used by the subprocess smoke test: it applies the same redirection as the in-process fixtures, makes
every host-name lookup fail (nothing may leave the machine), then hands over to the CLI.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import aiohttp.connector

from tests.e2e.fakecord.redirect import RefuseAllResolver, point_discord_at


def _refuse(host: Any, *args: Any, **kwargs: Any) -> Any:
    raise OSError(f"fakecord wrapper: refusing to resolve {host!r}")


def main() -> int:
    point_discord_at(sys.argv[1])
    setattr(aiohttp.connector, "DefaultResolver", RefuseAllResolver)  # noqa: B010 (mypy: not exported)
    socket.getaddrinfo = _refuse

    from oomcheck.cli import main as cli_main

    return cli_main(["bot", *sys.argv[2:]])


if __name__ == "__main__":
    sys.exit(main())
