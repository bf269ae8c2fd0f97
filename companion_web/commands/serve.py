"""``boardcam serve``: the web companion under waitress."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("serve", help="run the web companion")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(func=run)


def run(args) -> int:
    import waitress

    from companion_web import create_app

    app = create_app()
    print(f"boardcam companion on http://{args.host}:{args.port}/", flush=True)
    waitress.serve(app, host=args.host, port=args.port, threads=4)
    return 0
