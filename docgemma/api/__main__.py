"""``python -m docgemma.api``: serve the API alone; ``hash-key KEY``: a key's digest for
``DOCGEMMA_API_KEYS``."""

from __future__ import annotations

import argparse
import logging
import sys

from docgemma.api.app import create_api, serve
from docgemma.api.auth import hash_key
from docgemma.config import get_settings


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m docgemma.api", description=__doc__)
    commands = parser.add_subparsers(dest="command")
    digest = commands.add_parser("hash-key", help="print the SHA-256 digest of an API key")
    digest.add_argument("key")
    args = parser.parse_args(argv)
    if args.command == "hash-key":
        sys.stdout.write(hash_key(args.key) + "\n")
        return
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings = get_settings()
    serve(create_api(settings), settings)


if __name__ == "__main__":
    main()
