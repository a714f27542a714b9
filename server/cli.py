"""The ``machiavelox`` command line: ``scenario FILE...`` and ``serve [--host H] [--port P]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engine.scenario import run_case


def cmd_scenario(args: argparse.Namespace) -> int:
    """Run conformance cases; print PASS/FAIL per file; exit 1 if any fails."""
    failed = 0
    for f in args.files:
        path = Path(f)
        try:
            case = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
            print(f"FAIL {path.name}: malformed case: {e}")
            failed += 1
            continue
        ok, name, msg = run_case(case)
        if ok:
            print(f"PASS {name}")
        else:
            failed += 1
            print(f"FAIL {name}: {msg}")
    return 1 if failed else 0


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server with uvicorn until interrupted (settings from MACHIAVELOX_* and flags)."""
    import uvicorn

    from .app import create_app
    from .logs import configure
    from .settings import Settings

    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    settings = Settings(**overrides)
    configure(settings.log_level, settings.log_format)
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                log_level=settings.log_level.lower(), ws_max_size=settings.ws_max_size)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="machiavelox", description="Machiavelox, real-time Machiavelli.")
    sub = parser.add_subparsers(dest="command", required=True)
    sc = sub.add_parser("scenario", help="run conformance case files")
    sc.add_argument("files", nargs="+", help="case files (JSON)")
    sc.set_defaults(func=cmd_scenario)
    sv = sub.add_parser("serve", help="run the game server (uvicorn)")
    sv.add_argument("--host", help="address to listen on (default: MACHIAVELOX_HOST or 127.0.0.1)")
    sv.add_argument("--port", type=int, help="port (default: MACHIAVELOX_PORT or 8000)")
    sv.set_defaults(func=cmd_serve)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
