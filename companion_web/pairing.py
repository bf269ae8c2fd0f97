"""LAN pairing: every request must carry the pairing token when one is configured.

``boardcam serve --lan`` sets ``PAIRING_TOKEN`` (``secrets.token_urlsafe``) and
``PUBLIC_URL``. A device pairs by opening ``PUBLIC_URL?token=...`` (the terminal prints
it and its QR code; a paired page shows the same QR for the next device). The token is
then kept in an HttpOnly, Secure, SameSite=Strict cookie. Tokens are compared with
:func:`hmac.compare_digest`. Without ``PAIRING_TOKEN`` (localhost) nothing is checked.
"""

from __future__ import annotations

import hmac
import io
import threading
import time
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, g, jsonify, request

bp = Blueprint("pairing", __name__)
COOKIE = "boardcam_pairing"
HEADER = "X-Pairing-Token"


def pairing_url() -> str | None:
    """The URL (with token) a new device opens to pair, or None when not pairing."""
    token = current_app.config.get("PAIRING_TOKEN")
    base = current_app.config.get("PUBLIC_URL")
    if not token or not base:
        return None
    return f"{base.rstrip('/')}/?{urlencode({'token': token})}"


def qr_svg(text: str) -> str:
    """An inline SVG QR code of ``text`` (segno)."""
    import segno

    qr = segno.make(text, error="m")
    return qr.svg_inline(scale=4, dark="#111", light="#fff", border=2)


def _presented() -> tuple[str | None, bool]:
    from_query = request.args.get("token")
    if from_query:
        return from_query, True
    return request.headers.get(HEADER) or request.cookies.get(COOKIE), False


_last_logged: dict[str, float] = {}
_last_logged_lock = threading.Lock()
LOG_EVERY_SECONDS = 60.0


def _first_refusal_in_a_while(address: str | None) -> bool:
    """True at most once a minute per address (a flood of refusals is not a log flood)."""
    now = time.monotonic()
    with _last_logged_lock:
        if len(_last_logged) > 1000:  # many addresses: forget the old ones
            for key in [k for k, t in _last_logged.items() if now - t > LOG_EVERY_SECONDS]:
                del _last_logged[key]
        last = _last_logged.get(address or "")
        if last is not None and now - last < LOG_EVERY_SECONDS:
            return False
        _last_logged[address or ""] = now
        return True


@bp.before_app_request
def require_token():
    """Refuse requests without the right token (only when a token is configured)."""
    expected = current_app.config.get("PAIRING_TOKEN")
    if not expected:
        return None
    presented, from_query = _presented()
    if presented and hmac.compare_digest(presented.encode(), expected.encode()):
        g.pairing_set_cookie = from_query
        return None
    if _first_refusal_in_a_while(request.remote_addr):
        current_app.logger.warning(
            "refused an unpaired request from %s: %s %s (logged once a minute per address)",
            request.remote_addr,
            request.method,
            request.path[:200],
        )
    message = "not paired: open the URL with the pairing token shown in the terminal"
    if request.path.startswith("/api/"):
        return jsonify(error=message), 403
    return Response(
        "<!doctype html><meta charset=utf-8><title>boardcam: not paired</title>"
        f"<h1>Not paired</h1><p>{message} (or scan its QR code).</p>",
        status=403,
        mimetype="text/html",
    )


@bp.after_app_request
def remember_token(response):
    """Keep a token that came in the query string as a cookie."""
    if g.get("pairing_set_cookie"):
        response.set_cookie(
            COOKIE,
            current_app.config["PAIRING_TOKEN"],
            httponly=True,
            secure=request.is_secure,
            samesite="Strict",
            max_age=7 * 24 * 3600,
        )
    return response


@bp.get("/pairing.svg")
def pairing_qr():
    """The QR code of the pairing URL (404 when the server is not in LAN mode)."""
    url = pairing_url()
    if url is None:
        return jsonify(error="not in LAN mode: no pairing URL"), 404
    import segno

    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2)
    return Response(out.getvalue(), mimetype="image/svg+xml")
