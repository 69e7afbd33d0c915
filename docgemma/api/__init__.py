"""DocGemma's HTTP API: streamed chat (SSE), approvals, sessions, tenants, profiles.

``create_api`` builds the FastAPI app; ``python -m docgemma.api`` serves it alone and
``app.py`` mounts it under ``/api`` beside the Gradio UI.
"""

from docgemma.api.app import create_api

__all__ = ["create_api"]
