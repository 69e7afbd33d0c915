"""``python -m docgemma.kb ingest PATH | search "..." | build``: manage the knowledge base.

``ingest`` reads Markdown or HTML condition pages (one per file), checks them against the
topic hierarchy, writes them in canonical Markdown to ``<data_dir>/kb/pages`` (or ``--out``),
and rebuilds the index from them; from then on they replace the demonstration corpus.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from docgemma.config import get_settings
from docgemma.kb.corpus import CorpusError, page_files, read_page
from docgemma.kb.store import KnowledgeBase, chroma_client, get_knowledge_base, ingested_dir
from docgemma.kb.topics import Role

log = logging.getLogger("docgemma.kb")


def ingest(source: Path, out: Path, *, replace: bool) -> int:
    """Convert and validate every page first, so one bad file changes nothing."""
    files = page_files(source) if source.is_dir() else [source]
    if not files:
        raise CorpusError(f"no .md or .html pages in {source}")
    pages = [read_page(path) for path in files]
    out.mkdir(parents=True, exist_ok=True)
    if replace:
        for old in page_files(out):
            old.unlink()
    for page in pages:
        (out / f"{page.page_id}.md").write_text(page.markdown(), encoding="utf-8")
    return len(pages)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docgemma.kb", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("ingest", help="load condition pages (.md/.html)")
    add.add_argument("path", type=Path, help="a page file or a folder of pages")
    add.add_argument("--out", type=Path, help="corpus folder (default: <data_dir>/kb/pages)")
    add.add_argument("--replace", action="store_true", help="remove pages already there")
    find = commands.add_parser("search", help="show the best pages for a query")
    find.add_argument("query")
    find.add_argument("--role", choices=[r.value for r in Role])
    find.add_argument("-k", type=int, default=5)
    commands.add_parser("build", help="build or refresh the index")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    settings = get_settings()
    try:
        if args.command == "ingest":
            out = args.out or settings.kb_corpus_dir or ingested_dir(settings)
            count = ingest(args.path, out, replace=args.replace)
            kb = KnowledgeBase(chroma_client(settings), out)
            print(f"ingested {count} pages into {out}; index holds {len(kb.pages)} pages")
        elif args.command == "build":
            kb = get_knowledge_base(settings)
            print(f"index holds {len(kb.pages)} pages from {kb.pages_dir}")
        else:
            role = Role(args.role) if args.role else None
            hits = get_knowledge_base(settings).search(args.query, role=role, k=args.k)
            for n, hit in enumerate(hits, 1):
                print(f"{n}. {hit.score:.3f}  {hit.title} [{hit.category}/{hit.subcategory}]")
                print(f"   {hit.source}; {hit.severity.display}; best: {hit.sections[0].heading}")
    except (CorpusError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
