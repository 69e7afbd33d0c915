"""No other site can frame the page and overlay its Approve button (clickjacking).

The old page sent neither ``frame-ancestors`` nor ``X-Frame-Options``, so any site
could load it in an invisible frame. Now only the app itself may frame it, and on a
Hugging Face Space also the Space's page, named explicitly.
"""

from __future__ import annotations

import httpx
import pytest


@pytest.mark.parametrize("path", ["/", "/config", "/fhir/metadata"])
def test_only_the_app_may_frame_its_pages(live_app_with, monkeypatch, path: str) -> None:
    monkeypatch.delenv("SPACE_ID", raising=False)
    url = live_app_with()
    reply = httpx.get(f"{url}{path}", timeout=30)
    policy = reply.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in policy and "huggingface.co" not in policy
    assert reply.headers["X-Frame-Options"] == "SAMEORIGIN"


def test_on_a_space_the_spaces_page_may_frame_it(live_app_with, monkeypatch) -> None:
    monkeypatch.setenv("SPACE_ID", "someone/docgemma")
    url = live_app_with()
    reply = httpx.get(f"{url}/", timeout=30)
    policy = reply.headers["Content-Security-Policy"]
    assert "frame-ancestors 'self' https://huggingface.co" in policy
    assert "X-Frame-Options" not in reply.headers  # it cannot name another origin
