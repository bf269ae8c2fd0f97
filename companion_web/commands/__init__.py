"""``boardcam`` sub-commands, one module per topic.

Every module here defines ``register(subparsers)``, which adds its parser(s) and sets
``func`` on them; ``func(args)`` returns the exit code. :mod:`companion_web.cli`
discovers the modules, so adding a command never means editing the dispatcher.
"""
