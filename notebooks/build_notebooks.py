"""Regenerate the notebooks from ``experiments.notebooks``.

    python notebooks/build_notebooks.py            # cells only
    python notebooks/build_notebooks.py --execute  # also run them on the embedded model

Executed notebooks write their runs to a temporary results folder so the checkout stays clean.
"""

from __future__ import annotations

import argparse
import logging
import tempfile

from experiments.notebooks import ORDER, all_notebooks, execute, with_parameters, write
from experiments.runner import run_and_save

log = logging.getLogger("build_notebooks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--execute", action="store_true", help="run each notebook and store its outputs"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    books = all_notebooks()
    if args.execute:
        results = tempfile.mkdtemp(prefix="docgemma-notebooks-")
        # a second, larger classifiers run (embeddings only) for the comparison notebook
        run_and_save("classifiers", {"strategies": ["embedding_intent"], "results_dir": results})
        for name, book in books.items():
            log.info("executing %s", name)
            # the profiles notebook compares the committed evaluation runs; the others write
            # their runs to (and the comparison reads them from) the temporary folder
            own = {} if name.endswith("_compare_profiles.ipynb") else {"RESULTS_DIR": results}
            ran = execute(with_parameters(book, **own))
            # keep the published parameter cell as written (no temporary path in it)
            ran.cells[1].source = book.cells[1].source
            books[name] = ran
        log.info("runs written under %s (suites: %s)", results, ", ".join(ORDER))
    for path in write(books=books):
        log.info("wrote %s", path)


if __name__ == "__main__":
    main()
