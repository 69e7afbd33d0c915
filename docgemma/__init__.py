"""DocGemma: an open clinical decision-support assistant."""

__version__ = "0.1.0"
