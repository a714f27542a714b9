"""The ``machiavelox`` command line: ``scenario FILE...``, ``serve [--host H] [--port P]`` and
``demo [--host H] [--port P] [--level casual|shark] [--pace human|none]``."""

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


def uvicorn_options(settings: object) -> dict[str, object]:
    """uvicorn's settings that follow ours: the websocket frame limit and compression (off by
    default: ``Settings.ws_deflate``); X-Forwarded-For read
    only from ``trusted_proxies`` (uvicorn's ``forwarded_allow_ips``; none by default, so the
    client address is the peer's: ``server.limits``); on SIGTERM, connections closed after
    ``shutdown_seconds`` at most, so that the process exits within 5 s."""
    trusted = str(getattr(settings, "trusted_proxies", "") or "")
    opts: dict[str, object] = {
        "ws_max_size": getattr(settings, "ws_max_size", 1 << 20),
        "ws_per_message_deflate": bool(getattr(settings, "ws_deflate", False)),
        "proxy_headers": bool(trusted),
        "timeout_graceful_shutdown": getattr(settings, "shutdown_seconds", 2.0),
    }
    if trusted:
        opts["forwarded_allow_ips"] = trusted
    return opts


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server with uvicorn until interrupted (settings from MACHIAVELOX_* and flags)."""
    import uvicorn

    from .app import create_app
    from .logs import configure
    from .settings import Settings

    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    settings = Settings(**overrides)
    configure(settings.log_level, settings.log_format)
    _quiet_solver_banner()  # bots and hints use the solver: keep its banner off the logs
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port,
                log_level=settings.log_level.lower(), **uvicorn_options(settings))  # type: ignore[arg-type]
    return 0


def _quiet_solver_banner() -> None:
    """Keep HiGHS's one-time banner off standard output (see :mod:`bots.banner`)."""
    from bots.banner import quiet_first_solve

    quiet_first_solve()


def cmd_demo(args: argparse.Namespace) -> int:
    """Serve, with a single-game table where two bots wait for one person; print its link
    (and a new table's link each time a demo game is over)."""
    import asyncio
    import os

    import uvicorn

    from .app import create_app
    from .bots import create_demo_table
    from .logs import configure
    from .settings import Settings

    overrides = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    settings = Settings(**overrides)
    # Table logs would bury the link: warnings only, unless asked for.
    level = settings.log_level if "MACHIAVELOX_LOG_LEVEL" in os.environ else "WARNING"
    configure(level, settings.log_format)
    _quiet_solver_banner()
    app = create_app(settings)
    server = uvicorn.Server(uvicorn.Config(
        app, host=settings.host, port=settings.port, log_level="warning",
        **uvicorn_options(settings)))  # type: ignore[arg-type]

    async def main() -> int:
        serving = asyncio.get_running_loop().create_task(server.serve())
        for _ in range(600):  # 30 s at most
            if server.started or serving.done():
                break
            await asyncio.sleep(0.05)
        if not server.started:
            await serving
            return 1
        port = settings.port
        for srv in getattr(server, "servers", []):
            for sock in srv.sockets:
                port = sock.getsockname()[1]
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::", "") else settings.host
        code = await create_demo_table(app, args.level, pace=args.pace)
        print(f"Machiavelox demo: two {args.level} bots are waiting for you at table {code}.\n"
              f"Open http://{host}:{port}/t/{code} in your browser to play "
              f"(Ctrl+C stops the server).", flush=True)
        # When that game is over, two fresh bots wait at a new table.
        while not serving.done():
            await asyncio.wait({serving}, timeout=2.0)
            table = app.state.registry.get(code)
            if not serving.done() and (table is None or table.phase == "over"):
                code = await create_demo_table(app, args.level, pace=args.pace)
                print(f"Another game against two {args.level} bots: "
                      f"http://{host}:{port}/t/{code}", flush=True)
        await serving
        return 0

    return asyncio.run(main())


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
    dm = sub.add_parser("demo", help="serve, with a table where you play against two bots")
    dm.add_argument("--host", help="address to listen on (default: MACHIAVELOX_HOST or 127.0.0.1)")
    dm.add_argument("--port", type=int, help="port (default: MACHIAVELOX_PORT or 8000; 0: any free)")
    dm.add_argument("--level", choices=("casual", "shark"), default="casual",
                    help="how the two bots play (default: casual)")
    dm.add_argument("--pace", choices=("human", "none"), default="human",
                    help="human: the bots take a person's time to react, think and draw "
                         "(default); none: 0.8 s between commands")
    dm.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
