"""``keel``: one command for every service, like Nova's nova-* commands.

``keel api|metadata|conductor|scheduler|compute|all-in-one|manage [options]``
dispatches to ``keel.cmd.<module>.main(argv)``; each module parses its own
options with oslo.config (``--config-file`` / ``--config-dir`` as Nova's).
"""
import importlib
import sys

SUBCOMMANDS = {
    "api": "keel.cmd.api",
    "metadata": "keel.cmd.metadata",
    "conductor": "keel.cmd.conductor",
    "scheduler": "keel.cmd.scheduler",
    "compute": "keel.cmd.compute",
    "all-in-one": "keel.cmd.all_in_one",
    "manage": "keel.cmd.manage",
}

USAGE = ("usage: keel {%s} [--config-file FILE] [--config-dir DIR] ...\n"
         % ",".join(SUBCOMMANDS))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    modname = SUBCOMMANDS.get(name)
    if modname is None:
        sys.stderr.write(f"keel: unknown command {name!r}\n{USAGE}")
        return 2
    module = importlib.import_module(modname)
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
