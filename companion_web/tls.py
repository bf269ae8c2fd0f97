"""HTTPS for ``boardcam serve --lan``: a self-signed certificate and a TLS terminator.

Browsers grant ``getUserMedia`` only to secure contexts, so a phone on the local
network needs HTTPS. waitress (the production WSGI server) speaks plain HTTP only, and
werkzeug's ``ssl_context`` is for its development server. So LAN mode runs:

    phone ──TLS──▶ :port  asyncio TLS terminator (stdlib ``ssl``) ──TCP──▶ 127.0.0.1:<free>
                                                                   waitress (url_scheme=https)

The terminator only decrypts and copies bytes both ways (asyncio's TLS is the
standard library's, robust and non-blocking); all HTTP handling stays in waitress.
waitress listens on loopback only, so nothing reaches the app unencrypted from the
network.

Client addresses: waitress sees every relayed connection as coming from 127.0.0.1.
The terminator knows the real peer of each relay and the local port of its backend
connection, and records ``{backend port: peer}`` before it relays a single byte;
:class:`PeerAddress` (WSGI middleware, LAN mode only) looks the request's
``REMOTE_PORT`` up there and sets ``REMOTE_ADDR``/``REMOTE_PORT`` to the real peer. No
header carries the address, so a client cannot spoof it: client-supplied
``X-Forwarded-*``, ``Forwarded`` and ``X-Real-IP`` headers are removed, and a request
that reaches waitress without the terminator (a local process) keeps 127.0.0.1.

The certificate is made on first start with the ``openssl`` command-line tool (present
on Debian and macOS; the Python ``cryptography`` package is not a dependency) and kept
in the instance folder; it is remade when it expires soon or lacks the current address.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import shutil
import socket
import ssl
import subprocess
import threading
from datetime import timedelta
from pathlib import Path

#: Open TLS connections one client address may hold (a browser uses up to 6 per host;
#: waitress serves at most 100 connections, so one stranger cannot take them all).
MAX_CONNECTIONS_PER_ADDRESS = 24
CERT_NAME = "lan-cert.pem"
KEY_NAME = "lan-key.pem"
CERT_DAYS = 825
RENEW_BEFORE = timedelta(days=14)


class CertificateError(RuntimeError):
    """The self-signed certificate could not be made (no ``openssl``, or it failed)."""


def lan_address() -> str:
    """This machine's address on the local network (127.0.0.1 if there is none).

    Connecting a UDP socket sends no packet; it only selects the outgoing interface.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed, nothing sent
            return probe.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def _san(hosts: list[str]) -> str:
    entries = []
    for host in dict.fromkeys(hosts):
        try:
            ipaddress.ip_address(host)
            entries.append(f"IP:{host}")
        except ValueError:
            entries.append(f"DNS:{host}")
    return ",".join(entries)


def _certificate_ok(cert: Path, hosts: list[str]) -> bool:
    """True if ``cert`` is valid for at least RENEW_BEFORE more and names every host."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return False
    base = [openssl, "x509", "-in", str(cert), "-noout"]
    seconds = str(int(RENEW_BEFORE.total_seconds()))
    fresh = subprocess.run([*base, "-checkend", seconds], capture_output=True, timeout=30)
    if fresh.returncode != 0:
        return False
    san = subprocess.run(
        [*base, "-ext", "subjectAltName"], capture_output=True, text=True, timeout=30
    )
    names = {
        item.strip().split(":", 1)[1]
        for item in san.stdout.replace("\n", ",").split(",")
        if ":" in item and item.strip().startswith(("DNS:", "IP Address:"))
    }
    return all(h in names for h in hosts)


def ensure_certificate(folder: str | Path, hosts: list[str]) -> tuple[Path, Path]:
    """The (certificate, key) paths in ``folder``, made with ``openssl`` if needed.

    ``hosts`` (names or IP addresses) go into the subjectAltName; an existing
    certificate is reused while it covers them and is not about to expire.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / CERT_NAME, folder / KEY_NAME
    if cert.is_file() and key.is_file() and _certificate_ok(cert, hosts):
        return cert, key
    openssl = shutil.which("openssl")
    if openssl is None:
        raise CertificateError("LAN mode needs the openssl tool to make its certificate")
    tmp_key = folder / (KEY_NAME + ".tmp")
    cmd = [
        openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
        "-nodes", "-keyout", str(tmp_key), "-out", str(cert) + ".tmp",
        "-days", str(CERT_DAYS), "-subj", "/CN=boardcam companion",
        "-addext", f"subjectAltName={_san(hosts)}",
        "-addext", "basicConstraints=critical,CA:FALSE",
        "-addext", "extendedKeyUsage=serverAuth",
    ]  # fmt: skip
    old_umask = os.umask(0o077)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    finally:
        os.umask(old_umask)
    if proc.returncode != 0:
        reason = (proc.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise CertificateError(f"openssl could not make the certificate: {reason}")
    os.replace(tmp_key, key)
    os.replace(str(cert) + ".tmp", cert)
    return cert, key


class TLSTerminator:
    """Accept TLS on ``(host, port)`` and relay each connection to a plain TCP backend.

    Runs its own asyncio loop in a daemon thread: :meth:`start` returns once the socket
    listens (``self.port`` is the bound port, useful with port 0); :meth:`stop` closes it.
    A client address holding ``max_per_address`` open connections has further ones
    closed at once.
    """

    def __init__(self, host, port, backend, cert, key, *, handshake_timeout=15.0,
                 max_per_address=MAX_CONNECTIONS_PER_ADDRESS):  # fmt: skip
        self.host, self.port, self.backend = host, port, backend
        self.max_per_address = max_per_address
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.minimum_version = ssl.TLSVersion.TLSv1_2
        self.context.load_cert_chain(str(cert), str(key))
        self.context.set_alpn_protocols(["http/1.1"])
        self.handshake_timeout = handshake_timeout
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="tls-terminator", daemon=True)
        self._ready = threading.Event()
        self._server = None
        self._error: BaseException | None = None
        self._peers: dict[int, tuple[str, int]] = {}
        self._peers_lock = threading.Lock()
        self._open: dict[str, int] = {}  # open relays per client address (loop thread only)

    def peer_of(self, backend_port: int) -> tuple[str, int] | None:
        """The ``(address, port)`` of the client whose relay uses the local port
        ``backend_port`` towards the backend, or None (not a relayed connection)."""
        with self._peers_lock:
            return self._peers.get(backend_port)

    def start(self) -> TLSTerminator:
        """Start listening (raises the bind error, if any)."""
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        return self

    def stop(self) -> None:
        """Stop listening and end the loop thread."""
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._server = self._loop.run_until_complete(
                asyncio.start_server(
                    self._relay,
                    self.host,
                    self.port,
                    ssl=self.context,
                    ssl_handshake_timeout=self.handshake_timeout,
                )
            )
            self.port = self._server.sockets[0].getsockname()[1]
        except BaseException as exc:  # reported to start()
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            self._server.close()
            # end open relays inside the loop, so no coroutine outlives it
            tasks = asyncio.all_tasks(self._loop)
            for task in tasks:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self._loop.run_until_complete(self._server.wait_closed())
            self._loop.close()

    async def _relay(self, client_reader, client_writer) -> None:
        peer = client_writer.get_extra_info("peername") or ("unknown", 0)
        address = str(peer[0])
        if self._open.get(address, 0) >= self.max_per_address:
            client_writer.close()  # one device cannot use up the backend's connections
            return
        self._open[address] = self._open.get(address, 0) + 1
        try:
            await self._relay_to_backend(peer, client_reader, client_writer)
        finally:
            self._open[address] -= 1
            if not self._open[address]:
                del self._open[address]

    async def _relay_to_backend(self, peer, client_reader, client_writer) -> None:
        try:
            backend_reader, backend_writer = await asyncio.open_connection(*self.backend)
        except OSError:
            client_writer.close()
            return
        local_port = backend_writer.get_extra_info("sockname")[1]
        with self._peers_lock:  # before any byte reaches the backend
            self._peers[local_port] = (str(peer[0]), int(peer[1]))
        try:
            await self._pipe_both(client_reader, client_writer, backend_reader, backend_writer)
        finally:
            with self._peers_lock:
                if self._peers.get(local_port) == (str(peer[0]), int(peer[1])):
                    del self._peers[local_port]

    async def _pipe_both(self, client_reader, client_writer, backend_reader, backend_writer):
        async def pipe(reader, writer, *, close_after: bool):
            try:
                while chunk := await reader.read(65536):
                    writer.write(chunk)
                    await writer.drain()
            except (ConnectionError, ssl.SSLError, OSError):
                pass
            finally:
                # backend -> client ends: close the client (TLS has no half-close).
                # client -> backend ends: half-close the backend so it can finish.
                try:
                    if not close_after and writer.can_write_eof():
                        writer.write_eof()
                    else:
                        writer.close()
                except (OSError, RuntimeError, ssl.SSLError):
                    writer.close()

        await asyncio.gather(
            pipe(client_reader, backend_writer, close_after=False),
            pipe(backend_reader, client_writer, close_after=True),
        )
        backend_writer.close()


#: Request headers by which a client could claim another address (removed in LAN mode).
SPOOFABLE_HEADERS = ("HTTP_FORWARDED", "HTTP_X_REAL_IP", "HTTP_CLIENT_IP")


class PeerAddress:
    """WSGI middleware for LAN mode: the real client address from the terminator.

    ``REMOTE_ADDR``/``REMOTE_PORT`` become the TLS client's when the request came
    through ``terminator`` (looked up by the backend connection's port, see
    :meth:`TLSTerminator.peer_of`); ``X-Forwarded-*``, ``Forwarded``, ``X-Real-IP`` and
    ``Client-IP`` request headers are dropped, so nothing downstream can trust a
    client-chosen address.
    """

    def __init__(self, app, terminator: TLSTerminator):
        self.app, self.terminator = app, terminator

    def __call__(self, environ, start_response):
        for key in [k for k in environ if k.startswith("HTTP_X_FORWARDED_")]:
            del environ[key]
        for key in SPOOFABLE_HEADERS:
            environ.pop(key, None)
        if environ.get("REMOTE_ADDR") in ("127.0.0.1", "::1"):
            try:
                peer = self.terminator.peer_of(int(environ.get("REMOTE_PORT") or 0))
            except ValueError:
                peer = None
            if peer is not None:
                environ["REMOTE_ADDR"] = environ["REMOTE_HOST"] = peer[0]
                environ["REMOTE_PORT"] = str(peer[1])
        return self.app(environ, start_response)
