"""The embedded Redis, reachable over TCP, so FastStream can use it as its bus.

FastStream's broker opens its own network connections; the embedded Redis (fakeredis) lives
in this process. fakeredis' ``TcpFakeServer`` speaks RESP on a socket: pointed at the same
in-process server that ``Memory`` uses, it makes the embedded deployment a complete bus
(streams, consumer groups, request/reply) with no Redis installed. It binds to loopback only.
"""

from __future__ import annotations

import threading

from fakeredis import TcpFakeServer

from gcmem.settings import StorageSettings
from gcmem.storage.redis import EmbeddedRedis


class EmbeddedBus:
    def __init__(self, storage: StorageSettings, port: int = 0) -> None:
        self.embedded = EmbeddedRedis.for_storage(storage)
        self.server = TcpFakeServer(("127.0.0.1", port))
        # Serve the process's embedded keyspace instead of the fresh one TcpFakeServer made.
        self.server.fake_server = self.embedded.server
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        host_text = host.decode() if isinstance(host, bytes | bytearray) else str(host)
        return f"redis://{host_text}:{port}/0"

    def start(self) -> EmbeddedBus:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self.server.serve_forever, name="gcmem-embedded-redis", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self.server.shutdown()
            self.server.server_close()
            self._thread = None
