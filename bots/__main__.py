"""``python -m bots URL CODE``: one bot takes a free seat at table CODE of the server at URL
(``http://127.0.0.1:8000``) and plays until the game is over, over the websocket protocol, at
a person's pace unless told otherwise (``--pace none --reaction 0.8``). At a classic table (the
table's summary, ``GET /api/tables/{code}``, says its ``variant``) it plays with a
:class:`~bots.classic_brain.ClassicBrain`. It prints what it did at the end."""

from __future__ import annotations

import argparse
import asyncio
import sys

from .brain import LEVELS
from .client import HttpError, http_json, join_table, new_session, play_seat
from .pace import PACES


async def _main(args: argparse.Namespace) -> int:
    base = args.url.rstrip("/")
    token = await new_session(base, args.name or f"{args.level.capitalize()} bot")
    try:
        seat = (await join_table(base, token, args.code))["seat"]
    except HttpError as e:
        print(f"cannot sit at {args.code}: {e.body.get('message') or e}", file=sys.stderr)
        return 1
    summary = await http_json("GET", f"{base}/api/tables/{args.code}", token=token)
    classic = summary.get("variant", "machiavelox") != "machiavelox"
    print(f"{seat} ({args.level}) sits at {args.code}"
          + (f" ({summary['variant']}, {summary.get('size')} seats)" if classic else ""),
          flush=True)
    pace = args.pace or ("human" if args.reaction is None else "none")
    if pace == "human" and args.reaction is not None:
        print("--reaction goes with --pace none (the human pace has its own times)",
              file=sys.stderr)
        return 2
    report = await play_seat(base, args.code, token, args.level,
                             reaction=0.8 if args.reaction is None else args.reaction,
                             budget=args.budget, name=seat, max_seconds=args.max_minutes * 60,
                             pace=pace, classic=classic)
    result = (report.game or {}).get("result")
    print(f"{seat}: {report.reason or 'stopped'}; {report.commands} commands, "
          f"{report.refused} refused, {report.reconnects} reconnections; result {result}")
    return 0 if report.over else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bots", description=__doc__)
    ap.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    ap.add_argument("code", help="the table's code")
    ap.add_argument("--level", choices=LEVELS, default="casual")
    ap.add_argument("--pace", choices=PACES,
                    help="human: a person's times by level (default); none: --reaction seconds "
                         "between commands (default when --reaction is given)")
    ap.add_argument("--reaction", type=float,
                    help="seconds between commands at pace none (default 0.8)")
    ap.add_argument("--budget", type=float, default=0.1, help="solver seconds per decision")
    ap.add_argument("--name", help="display name (default: Casual bot / Shark bot)")
    ap.add_argument("--max-minutes", type=float, default=360.0)
    return asyncio.run(_main(ap.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
