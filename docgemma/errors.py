"""Error types shared by layers that do not import each other.

``ConfigurationError`` is raised both where model files are located (``docgemma.assets``)
and where backends are built (``docgemma.llm``): defined below both, callers of
``create_backend`` catch one type for any configuration that cannot work, a missing model
file included. ``docgemma.llm.errors`` re-exports both names with the rest of the LLM
layer's errors.
"""

from __future__ import annotations


class LLMError(Exception):
    """Base class for every error raised by the LLM layer."""


class ConfigurationError(LLMError):
    """The configuration names something that cannot work (unknown backend, missing file)."""
