"""A bare FastAPI websocket broadcast server: the yardstick of ``bench/load.py``.

No game, no store, no views: clients join a room by URL (``/ws/{room}``); every text message a
client sends is parsed as JSON, given the room's next version, wrapped in an ``update`` frame
broadcast to every socket in the room (the sender included), then answered with an ``ack`` to
the sender, exactly the frames and order the game server sends (``docs/protocol.md``):

    client → {"type": "command", "id": "c1", "do": "stage", "card": "7C"}
    every socket in the room ← {"type": "update", "version": 7, "events": [<the command>]}
    sender ← {"type": "ack", "id": "c1", "version": 7}

It runs under uvicorn with the same settings as ``machiavelox serve`` (same event loop, same
websocket implementation, same per-message-deflate default), so that the difference between
the two servers is the game. ``--pad N`` adds N bytes to each update (default 0).

Run: ``python bench/bare_server.py --port 8765``.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import uvicorn
from fastapi import FastAPI, WebSocket, WebSocketDisconnect


def create_app(pad: int = 0) -> FastAPI:
    app = FastAPI(title="bare broadcast")
    rooms: dict[str, set[WebSocket]] = defaultdict(set)
    versions: dict[str, int] = defaultdict(int)
    filler = "x" * pad

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.websocket("/ws/{room}")
    async def room_socket(ws: WebSocket, room: str) -> None:
        await ws.accept()
        members = rooms[room]
        members.add(ws)
        try:
            await ws.send_text(json.dumps({"type": "welcome", "room": room,
                                           "version": versions[room]}))
            while True:
                text = await ws.receive_text()
                try:
                    msg = json.loads(text)
                except ValueError:
                    continue
                versions[room] += 1
                version = versions[room]
                update = {"type": "update", "version": version, "events": [msg]}
                if filler:
                    update["pad"] = filler
                frame = json.dumps(update)
                for member in list(members):
                    try:
                        await member.send_text(frame)
                    except Exception:  # noqa: BLE001 - that member is gone; its reader cleans up
                        members.discard(member)
                await ws.send_text(json.dumps({"type": "ack", "id": msg.get("id"),
                                               "version": version}))
        except WebSocketDisconnect:
            pass
        finally:
            members.discard(ws)
            if not members:
                rooms.pop(room, None)
                versions.pop(room, None)

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--pad", type=int, default=0, help="extra bytes in each update")
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args()
    uvicorn.run(create_app(args.pad), host=args.host, port=args.port, log_level=args.log_level)


if __name__ == "__main__":
    main()
