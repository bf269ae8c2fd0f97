"""``boardcam serve``: the web companion under waitress.

``boardcam serve [--host 127.0.0.1] [--port 8000]`` serves plain HTTP for this computer
(browsers treat localhost as a secure context, so the camera works).

``boardcam serve --lan`` serves the local network over HTTPS (a self-signed certificate
made on first start in the instance folder; see :mod:`companion_web.tls`) and requires
a pairing token: the terminal prints the URL with the token and its QR code, and the
start page of a paired device shows the same QR code for the next one.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

from companion_web.cli_support import UsageError

#: Addresses that serve this computer only, and the Host names it then answers to.
#: (``::1`` is not checked: werkzeug cannot match an IPv6 literal in its trusted hosts.)
LOOPBACK = ("127.0.0.1", "localhost")
LOOPBACK_NAMES = ("127.0.0.1", "localhost")


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the web companion")
    p.add_argument("--host", default=None, help="address to listen on (127.0.0.1; --lan: 0.0.0.0)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--lan",
        action="store_true",
        help="serve the local network over HTTPS with a pairing token (for phones)",
    )
    p.add_argument("--threads", type=int, default=4, help="worker threads (4)")
    p.add_argument(
        "--instance",
        metavar="DIR",
        help="instance folder: sessions database, certificate, calibration "
        "(default: the package's instance folder)",
    )
    p.set_defaults(func=run)


def pairing_banner(url: str) -> str:
    """The terminal text for LAN mode: the URL and its QR code (segno, compact)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return f"Pair a phone: scan the code or open\n  {url}\n{out.getvalue()}"


def run(args) -> int:
    import waitress

    from companion_web import create_app

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port: {args.port} is not a port number")
    if args.threads < 1:
        raise UsageError("--threads: must be at least 1")
    if not args.lan:
        host = args.host or "127.0.0.1"
        config = _config(args)
        if host in LOOPBACK:
            # DNS rebinding: a web page whose name resolves to 127.0.0.1 must not drive
            # the companion from the user's browser. Only loopback names are answered
            # (anything else is 400); LAN mode has the pairing token instead.
            config["TRUSTED_HOSTS"] = list(LOOPBACK_NAMES)
        app = create_app(config)
        try:
            server = waitress.create_server(
                app, host=host, port=args.port, threads=args.threads, **_limits(app)
            )
        except OSError as exc:
            raise UsageError(
                f"--port: cannot listen on {host}:{args.port} ({exc.strerror})"
            ) from None
        port = server.effective_port
        print(f"boardcam companion on http://{_url_host(host)}:{port}/", flush=True)
        try:
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            server.close()
        return 0
    return _run_lan(args)


def _run_lan(args) -> int:
    import waitress

    from companion_web import create_app
    from companion_web.tls import (
        CertificateError,
        PeerAddress,
        TLSTerminator,
        ensure_certificate,
        lan_address,
    )

    host = args.host or "0.0.0.0"
    address = lan_address() if host in ("0.0.0.0", "::") else host
    token = secrets.token_urlsafe(24)
    app = create_app({**_config(args), "PAIRING_TOKEN": token})
    try:
        cert, key = ensure_certificate(
            app.instance_path, [address, "localhost", "127.0.0.1"]
        )
    except CertificateError as exc:
        raise UsageError(f"--lan: {exc}") from None
    backend = waitress.create_server(
        app, host="127.0.0.1", port=0, threads=args.threads, url_scheme="https", **_limits(app)
    )
    terminator = TLSTerminator(host, args.port, ("127.0.0.1", backend.effective_port), cert, key)
    app.wsgi_app = PeerAddress(app.wsgi_app, terminator)  # the real client address
    try:
        terminator.start()
    except OSError as exc:
        backend.close()
        raise UsageError(f"--port: cannot listen on {host}:{args.port} ({exc.strerror})") from None
    public_url = f"https://{_url_host(address)}:{terminator.port}"  # the bound port (--port 0)
    app.config["PUBLIC_URL"] = public_url
    print(f"boardcam companion on {public_url}/ (HTTPS, self-signed: {cert})", flush=True)
    print(pairing_banner(f"{public_url}/?token={token}"), flush=True)
    try:
        backend.run()
    except KeyboardInterrupt:
        pass
    finally:
        terminator.stop()
        backend.close()
    sys.stdout.flush()
    return 0


def _limits(app) -> dict:
    """waitress limits matching the app's: a body larger than ``MAX_CONTENT_LENGTH``
    (plus room for the multipart framing) is refused with 413 from its headers, before
    it is read (waitress would otherwise spool up to 1 GB per connection to disk before
    the app sees the request)."""
    return {"max_request_body_size": int(app.config["MAX_CONTENT_LENGTH"]) + 256 * 1024}


def _config(args) -> dict:
    return {"INSTANCE_PATH": str(Path(args.instance).resolve())} if args.instance else {}


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
